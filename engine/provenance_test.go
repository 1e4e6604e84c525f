//go:build linux

package engine_test

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/pluginlock"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/internal/logtest"
)

// builtWhoami holds testdata/whoami built as v1 and v2, once per run.
var builtWhoami struct {
	once sync.Once
	bins map[string]string // version → binary
	err  error
}

// whoamiPlugin returns the whoami test plugin built with main.version=v.
func whoamiPlugin(t *testing.T, v string) string {
	t.Helper()
	builtWhoami.once.Do(func() {
		dir, err := os.MkdirTemp(testTemp, "harness-whoami-")
		if err != nil {
			builtWhoami.err = err
			return
		}
		builtWhoami.bins = map[string]string{}
		for _, ver := range []string{"v1", "v2"} {
			out := filepath.Join(dir, ver)
			if b, err := goBuild("-ldflags", "-X main.version="+ver, "-o", out, "./testdata/whoami").CombinedOutput(); err != nil {
				builtWhoami.err = fmt.Errorf("go build whoami %s: %v\n%s", ver, err, b)
				return
			}
			builtWhoami.bins[ver] = out
		}
	})
	if builtWhoami.err != nil {
		t.Fatal(builtWhoami.err)
	}
	return builtWhoami.bins[v]
}

// gatedModel is the script provider with a gate: its first request (the
// first step's "thinking") signals entered and then waits for open
// before the script answers it. The step has started — its tool list is
// taken and step/start is logged — while the model waits.
type gatedModel struct {
	agent.Model
	pass    atomic.Bool // while set, requests are not gated nor counted
	n       atomic.Int32
	entered chan struct{}
	open    chan struct{}
}

// Stream implements agent.Model.
func (m *gatedModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	first := !m.pass.Load() && m.n.Add(1) == 1
	return func(yield func(llm.Chunk, error) bool) {
		if first {
			close(m.entered)
			select {
			case <-m.open:
			case <-ctx.Done():
				yield(llm.Chunk{}, ctx.Err())
				return
			}
		}
		for c, err := range m.Model.Stream(ctx, req) {
			if !yield(c, err) {
				return
			}
		}
	}
}

// TestReplacedWhileThinking is the acceptance test of provenance across a
// hot reload, through the real loop, the real toolbox and the real
// session log: the whoami plugin (its tool answers its version and pid)
// is replaced by another version while the model thinks in step 1; the
// step's call is served by a process that was serving when the step
// began (the old one, held by the step), and its tool/call names exactly
// that binary and pid. The next step, and the next turn, go to the new
// version, and their tool/calls name it. Once the step ends, the old
// process stops.
func TestReplacedWhileThinking(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test plugin twice")
	}
	t.Parallel()
	v1, v2 := whoamiPlugin(t, "v1"), whoamiPlugin(t, "v2")
	sum1, err := pluginlock.HashFile(v1)
	if err != nil {
		t.Fatal(err)
	}
	sum2, err := pluginlock.HashFile(v2)
	if err != nil {
		t.Fatal(err)
	}
	if sum1 == sum2 {
		t.Fatalf("v1 and v2 of whoami are the same binary (sha256 %s)", sum1)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "whoami")
	copyFile(t, v1, path)

	call := func(id string) string {
		return fmt.Sprintf(`{"toolCalls":[{"id":%q,"name":"whoami","args":{}}]}`, id)
	}
	// Who served what is checked on the log below, not by the script.
	lines := []string{
		// Turn 0 starts the plugin (plugins start on first use): the
		// process held across the reload is then a running one.
		call("c0"),
		`{"text":"turn 0 done","expect":{"lastRole":"tool"}}`,
		call("c1"), // step 1: answered only once the plugin is replaced
		call("c2"), // step 2
		`{"text":"turn 1 done","expect":{"lastRole":"tool"}}`,
		call("c3"), // turn 2
		`{"text":"turn 2 done","expect":{"lastRole":"tool"}}`,
	}
	sc, err := script.Load(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	model := &gatedModel{Model: sc, entered: make(chan struct{}), open: make(chan struct{})}

	state := t.TempDir()
	var stderr logtest.Buffer
	h, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{dir}, Watch: true, Model: model, ModelName: "script",
		MaxSteps: 10, SubagentDepth: 1, SubagentBudget: subagent.Budget{Steps: 10, Wall: time.Minute},
		Logger: hclog.New(&hclog.LoggerOptions{Output: &stderr, Level: hclog.Error}), LogLevel: "error"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	if err := h.StartTools(ctx); err != nil {
		t.Fatal(err)
	}
	if lazy, _ := pluginInfo(h, path); lazy.Status != toolbox.StatusNotStarted || lazy.PID != 0 {
		t.Fatalf("before any call: %+v, want not started", lazy)
	}
	s, err := h.CreateSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(s)
	model.pass.Store(true)
	if out := h.Run(ctx, s, nil, event.Text("start it"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 0: %s %v\n%s", out.Reason, out.Err, stderr.String())
	}
	model.pass.Store(false)
	old, ok := pluginInfo(h, path)
	if !ok || old.SHA256 != sum1 || old.PID == 0 || old.Status != toolbox.StatusRunning {
		t.Fatalf("after its first call: %+v (found %v), want v1 (sha256 %s) running", old, ok, sum1)
	}

	type ended struct {
		reason event.Reason
		err    error
	}
	turn1 := make(chan ended, 1)
	go func() {
		out := h.Run(ctx, s, nil, event.Text("who serves?"), nil, nil)
		turn1 <- ended{out.Reason, out.Err}
	}()
	answer := sync.OnceFunc(func() { close(model.open) })
	defer answer() // never leave the turn hanging on a failure

	// The model thinks: step 1 has begun and holds its tool list.
	select {
	case <-model.entered:
	case r := <-turn1:
		t.Fatalf("turn 1 ended (%s %v) before the model was asked\n%s", r.reason, r.err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the model was not asked within 30 s")
	}
	evs, logPath := logtest.ReadLog(t, state)
	if ts := logtest.Types(evs); ts[len(ts)-1] != "step/start" {
		t.Fatalf("while the model thinks, the log ends with %v, want step/start", ts)
	}

	// Replace the binary (a rename, as an install does) and wait until
	// the toolbox serves the new version.
	staged := filepath.Join(t.TempDir(), "whoami")
	copyFile(t, v2, staged)
	if err := os.Rename(staged, path); err != nil {
		t.Fatal(err)
	}
	var cur toolbox.PluginInfo
	deadline := time.Now().Add(30 * time.Second)
	for {
		cur, _ = pluginInfo(h, path)
		if cur.SHA256 == sum2 && cur.Status == toolbox.StatusRunning && cur.PID != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reload to v2 within 30 s: %+v\n%s", cur, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if cur.PID == old.PID {
		t.Fatalf("v2 runs as pid %d, the pid of v1", cur.PID)
	}
	if !alive(old.PID) {
		t.Errorf("v1 (pid %d) stopped while step 1, which listed it, still runs", old.PID)
	}

	// The model answers: it calls whoami, then step 2 calls it again.
	answer()
	select {
	case r := <-turn1:
		if r.reason != event.ReasonCompleted {
			t.Fatalf("turn 1: %s %v\n%s", r.reason, r.err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("turn 1 did not end within 60 s")
	}
	if out := h.Run(ctx, s, nil, event.Text("and now?"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 2: %s %v\n%s", out.Reason, out.Err, stderr.String())
	}

	// The log is the truth: each tool/call names the process whose answer
	// its tool/result carries, and that process was serving.
	evs = logtest.ReadJSONL(t, logPath)
	want := map[string]toolbox.PluginInfo{"c1": old, "c2": cur, "c3": cur}
	versions := map[string]string{sum1: "v1", sum2: "v2"}
	calls := map[string]map[string]any{}
	results := map[string]string{}
	for _, e := range evs {
		d, _ := e["data"].(map[string]any)
		id, _ := d["callId"].(string)
		switch e["type"] {
		case "tool/call":
			calls[id] = d
		case "tool/result":
			if d["isError"] == true {
				t.Errorf("tool/result %s is an error: %v", id, d["content"])
			}
			results[id], _ = d["content"].(string)
		}
	}
	for _, id := range []string{"c1", "c2", "c3"} {
		e, ok := calls[id]
		if !ok {
			t.Errorf("no tool/call %s in the log: %v", id, logtest.Types(evs))
			continue
		}
		p, _ := e["plugin"].(map[string]any)
		sum, _ := p["sha256"].(string)
		pid, _ := p["pid"].(float64)
		served := results[id]
		named := fmt.Sprintf("version=%s pid=%d", versions[sum], int(pid))
		if served != named {
			t.Errorf("tool/call %s names sha256 %s pid %d (%s), but %q served it", id, shortSum(sum), int(pid), named, served)
		}
		w := want[id]
		if sum != w.SHA256 || int(pid) != w.PID || p["version"] != versions[w.SHA256] {
			t.Errorf("tool/call %s names %v, want %s pid %d (%s)", id, p, shortSum(w.SHA256), w.PID, versions[w.SHA256])
		}
	}

	// Released at the end of step 1, the old process stops.
	deadline = time.Now().Add(30 * time.Second)
	for alive(old.PID) {
		if time.Now().After(deadline) {
			t.Fatalf("v1 (pid %d) still runs 30 s after the step that held it ended", old.PID)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// shortSum is the first 12 hex digits of a sha256.
func shortSum(sum string) string { return sum[:min(12, len(sum))] }

// pluginInfo returns the toolbox's entry for plugin file path.
func pluginInfo(h *engine.Runtime, path string) (toolbox.PluginInfo, bool) {
	for _, p := range h.Plugins() {
		if p.Path == path {
			return p, true
		}
	}
	return toolbox.PluginInfo{}, false
}

// alive reports whether process pid runs (a zombie is dead, only unreaped).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}
