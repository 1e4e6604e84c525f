//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/internal/logtest"
)

// toolsAsked records the tool names of each request a model is sent.
type toolsAsked struct {
	agent.Model
	mu   sync.Mutex
	reqs [][]string
}

func (m *toolsAsked) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	m.mu.Lock()
	m.reqs = append(m.reqs, names)
	m.mu.Unlock()
	return m.Model.Stream(ctx, req)
}

// gateAsker allows every call; before its first answer it waits for
// ready, so that the step after it is one the slow server is up for.
type gateAsker struct {
	once  sync.Once
	ready func()
}

func (a *gateAsker) Ask(context.Context, permission.Request) (event.Decision, error) {
	a.once.Do(a.ready)
	return event.AllowOnce, nil
}

// TestMCPSlowServerJoinsLater: a server that takes 20 s to start does not
// hold up the first request (sent without its tools while it starts,
// with the fast server's), and its tools are in the second step's
// request once it is up; a slow start is no failure, so no notice.
func TestMCPSlowServerJoinsLater(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server and waits for one that starts in 20 s")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	lines := []string{
		`{"toolCalls":[{"id":"c1","name":"mcp__fast__echo","args":{"text":"meanwhile"}}],"expect":{"toolsInclude":["mcp__fast__echo"]}}`,
		`{"toolCalls":[{"id":"c2","name":"mcp__slow__echo","args":{"text":"late"}}],"expect":{"toolsInclude":["mcp__slow__echo"],"lastContains":"echo: meanwhile"}}`,
		`{"text":"done","expect":{"lastContains":"echo: late"}}`,
	}
	sc, err := script.Load(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	model := &toolsAsked{Model: sc}
	// The first step waits up to 10 s for servers still starting: the
	// fast one is up by then however busy the machine, the slow one not.
	h, err := engine.New(engine.Config{StateDir: t.TempDir(), Model: model, ModelName: "script", MaxSteps: 10,
		Policy: permission.Policy{Mode: permission.ModeAsk}, MCPStartWait: 10 * time.Second, MCPStartTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []engine.MCPStatus
	stop := h.WatchMCP(s.ID(), func(st engine.MCPStatus) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, st)
	})
	defer stop()
	h.ConnectMCP(s, []engine.MCPServer{{Name: "fast", Command: bin},
		// its own start timeout (a minute) over the host's (5 s)
		{Name: "slow", Command: bin, Args: []string{"-sleep", "20s"}, StartTimeout: time.Minute}})
	asker := &gateAsker{ready: func() { h.MCPTools(s.ID()) }} // returns once slow is up
	out := h.Run(context.Background(), s, nil, event.Text("use both servers"), nil, asker)
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v", out.Reason, out.Err)
	}
	model.mu.Lock()
	reqs := model.reqs
	model.mu.Unlock()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if !has(reqs[0], "mcp__fast__echo") || has(reqs[0], "mcp__slow__echo") {
		t.Errorf("the first request's tools %v: want the fast server's and not the slow one's (it must not wait 20 s)", reqs[0])
	}
	if !has(reqs[1], "mcp__slow__echo") {
		t.Errorf("the second request's tools %v lack the slow server's", reqs[1])
	}
	if err := h.CloseSession(s); err != nil { // the watcher has been told all
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var slow []string
	for _, st := range seen {
		if st.Notice {
			t.Errorf("notice %+v: a slow start is no failure", st)
		}
		if st.Server == "slow" {
			slow = append(slow, st.State)
		}
	}
	if strings.Join(slow, ",") != "starting,up" {
		t.Errorf("the slow server's states %v, want starting then up", slow)
	}
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestMCPServerRestartsInTheLoop: a server that dies during a call is
// still in the next request's tools, and the model's next call of it
// starts it again and works; the editor (a watcher) is told of the
// death and of the server up again, the log holds neither.
func TestMCPServerRestartsInTheLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	lines := []string{
		`{"toolCalls":[{"id":"c1","name":"mcp__test__crash","args":{}}],"expect":{"toolsInclude":["mcp__test__crash"]}}`,
		`{"toolCalls":[{"id":"c2","name":"mcp__test__echo","args":{"text":"back"}}],"expect":{"toolsInclude":["mcp__test__echo"],"lastContains":"crashing on purpose"}}`,
		`{"text":"done","expect":{"lastContains":"echo: back"}}`,
	}
	sc, err := script.Load(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	h, err := engine.New(engine.Config{StateDir: state, Model: sc, ModelName: "script", MaxSteps: 10,
		Policy: permission.Policy{Mode: permission.ModeAllowAll}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notices []engine.MCPStatus
	stop := h.WatchMCP(s.ID(), func(st engine.MCPStatus) {
		mu.Lock()
		defer mu.Unlock()
		if st.Notice {
			notices = append(notices, st)
		}
	})
	defer stop()
	h.ConnectMCP(s, []engine.MCPServer{{Name: "test", Command: bin}})
	first := h.MCPTools(s.ID())[0].Server.PID
	out := h.Run(context.Background(), s, nil, event.Text("crash it, then use it"), nil, nil)
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v", out.Reason, out.Err)
	}
	if pid := h.MCPTools(s.ID())[0].Server.PID; pid == first {
		t.Errorf("the server was not started again: pid %d", pid)
	}
	if err := h.CloseSession(s); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 2 || notices[0].State != "failed" || !strings.Contains(notices[0].Err, "MCP server test") || notices[1].State != "up" {
		t.Errorf("notices %+v, want the death, then up again", notices)
	}
	evs, _ := logtest.ReadLog(t, state)
	for _, e := range evs {
		if e["type"] == "assistant/message" || e["type"] == "user/message" {
			if b, _ := json.Marshal(e); strings.Contains(string(b), "is up again") || strings.Contains(string(b), "stopped: it exited") {
				t.Errorf("a notice is in the log: %s", b)
			}
		}
	}
}
