//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/session"
)

// acpProc is a running `harness acp` driven over its stdio.
type acpProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
}

// startACP starts the installed harness bin as an editor does: `harness
// acp`, its plugins found next to it, the state dir state, and a script
// model with no lines (the benchmarks make no model calls).
func startACP(b *testing.B, bin, state string) *acpProc {
	b.Helper()
	cmd := exec.Command(bin, "acp", "--provider", "script", "--script", filepath.Join(state, "none.jsonl"))
	cmd.Env = installedEnv(state)
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &acpProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: stderr}
}

// call sends request id and reads until its response; it returns the
// number of notifications read before it.
func (p *acpProc) call(b *testing.B, id int, method, params string) int {
	b.Helper()
	if _, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
		b.Fatal(err)
	}
	prefix := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,`, id))
	notes := 0
	for {
		line, err := p.out.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			var more []byte
			more, err = p.out.ReadSlice('\n')
			line = append(bytes.Clone(line), more...)
		}
		if err != nil {
			b.Fatalf("%s: read: %v", method, err)
		}
		if bytes.HasPrefix(line, prefix) {
			if bytes.Contains(line, []byte(`"error"`)) {
				b.Fatalf("%s: %s", method, line)
			}
			return notes
		}
		notes++
	}
}

// noPlugins fails if the process runs any child: plugins start on the
// first call to one of their tools, and the benchmarks call none.
func (p *acpProc) noPlugins(b *testing.B) {
	b.Helper()
	if kids := childPIDs(p.cmd.Process.Pid); len(kids) != 0 {
		b.Fatalf("harness acp runs %d child processes %v before any tool call, want none (plugins start on first use)", len(kids), kids)
	}
}

func (p *acpProc) stop(b *testing.B) {
	b.Helper()
	p.in.Close()
	if err := p.cmd.Wait(); err != nil {
		b.Fatalf("harness acp: %v\nstderr:\n%s", err, p.stderr)
	}
}

// coldState returns a new, empty state dir for the installed harness,
// holding only a script file with no lines in it.
func coldState(b *testing.B) string {
	b.Helper()
	state := b.TempDir()
	if err := os.WriteFile(filepath.Join(state, "none.jsonl"), []byte("// no model calls\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	return state
}

// benchState returns a state dir for the installed harness bin, warmed by
// one start (its plugin cache and the plugins' cached descriptions filled,
// as after a user's first start), and a script file with no lines in it.
func benchState(b *testing.B, bin string) string {
	b.Helper()
	settleInstall(b, bin)
	state := coldState(b)
	begin := time.Now()
	p := startACP(b, bin, state)
	p.call(b, 1, "initialize", initializeParams)
	p.call(b, 2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, b.TempDir()))
	p.noPlugins(b)
	p.stop(b)
	b.Logf("first start in a new state dir (plugin cache cold): spawn → session/new answered %v", time.Since(begin))
	return state
}

// settleInstall waits, untimed, until every file of the install of bin is
// older than the plugin cache's racy window (2 s): a plugin binary written
// more recently is hashed again at each start rather than trusted from
// the hash index (host/plugincache), which a user's install, built once
// and started many times, never is. Without it a benchmark that runs
// right after the build measures 20–35 ms of hashing per start.
func settleInstall(b *testing.B, bin string) {
	b.Helper()
	var newest time.Time
	filepath.WalkDir(filepath.Dir(bin), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil && fi.ModTime().After(newest) {
				newest = fi.ModTime()
			}
		}
		return nil
	})
	if wait := time.Until(newest.Add(2500 * time.Millisecond)); wait > 0 {
		time.Sleep(wait)
	}
}

const initializeParams = `{"protocolVersion":1,"clientCapabilities":{}}`

// BenchmarkACPStart measures a fresh `harness acp` of the installed
// layout (bin/harness, its four plugins in bin/plugins/ found next to it,
// no --plugin-dir), from spawn until initialize is answered, and until
// session/new is answered: with a state dir whose plugin cache and cached
// descriptions are warm (a user's every start but the first), and with a
// new, empty state dir (session_new_cold: each plugin is copied into the
// cache, started once to be described and stopped). session_new also
// reports the RSS of the whole process tree (host and every descendant)
// once session/new is answered. After each, untimed, it checks that no
// plugin process runs: plugins start on the first call to one of their
// tools. The process's exit is not counted.
func BenchmarkACPStart(b *testing.B) {
	bin := installedHarness(b)
	state := benchState(b, bin)
	cwd := b.TempDir()
	newParams := fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, cwd)
	b.Run("initialize", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p := startACP(b, bin, state)
			p.call(b, 1, "initialize", initializeParams)
			b.StopTimer()
			p.call(b, 2, "session/new", newParams)
			p.noPlugins(b)
			p.stop(b)
			b.StartTimer()
		}
	})
	b.Run("session_new", func(b *testing.B) {
		var rss, anon, procs int
		for i := 0; i < b.N; i++ {
			p := startACP(b, bin, state)
			p.call(b, 1, "initialize", initializeParams)
			p.call(b, 2, "session/new", newParams)
			b.StopTimer()
			rss, anon, procs = treeRSS(p.cmd.Process.Pid)
			p.noPlugins(b)
			p.stop(b)
			b.StartTimer()
		}
		b.ReportMetric(float64(rss)/1024, "MB-tree-rss")
		b.ReportMetric(float64(anon)/1024, "MB-tree-anon")
		b.ReportMetric(float64(procs), "procs")
	})
	b.Run("session_new_cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			state := coldState(b)
			b.StartTimer()
			p := startACP(b, bin, state)
			p.call(b, 1, "initialize", initializeParams)
			p.call(b, 2, "session/new", newParams)
			b.StopTimer()
			p.noPlugins(b)
			p.stop(b)
			b.StartTimer()
		}
	})
}

// BenchmarkVersion measures `harness version` of the installed layout,
// spawn to exit, next to the floor: a static Go binary that does nothing,
// built and run the same way in the same run. floor-ratio is harness's
// time over the floor's.
func BenchmarkVersion(b *testing.B) {
	bin := installedHarness(b)
	floor := floorBinary(b)
	run := func(b *testing.B, argv ...string) time.Duration {
		var total time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = installedEnv(b.TempDir())
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %v\n%s", argv, err, out)
			}
			total += time.Since(start)
		}
		return total / time.Duration(b.N)
	}
	var harness, empty time.Duration
	b.Run("harness", func(b *testing.B) { harness = run(b, bin, "version") })
	b.Run("floor", func(b *testing.B) { empty = run(b, floor) })
	if empty > 0 {
		b.Logf("harness version: %v per run; a static Go binary doing nothing: %v (%.1f× the floor)", harness, empty, float64(harness)/float64(empty))
	}
}

// floorBinary builds a static Go program that does nothing: the floor of
// any Go command's start.
func floorBinary(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module floor\n\ngo 1.24\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := staticBuild("-o", filepath.Join(dir, "floor"), ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the floor: %v\n%s", err, out)
	}
	return filepath.Join(dir, "floor")
}

// BenchmarkACPLoad measures session/load of a 10,000-event session in a
// fresh `harness acp` of the installed layout: from the request to its
// response, every replayed update read (budget 500 ms).
// spawn→loaded/op adds the process start and initialize. After each load,
// untimed, it checks that no plugin process runs (they start on first
// use).
func BenchmarkACPLoad(b *testing.B) {
	bin := installedHarness(b)
	state := benchState(b, bin)
	id, n := writeSession(b, filepath.Join(state, "sessions"), 10_000)
	params := fmt.Sprintf(`{"sessionId":%q,"cwd":"/bench","mcpServers":[]}`, id)
	var total time.Duration
	var updates int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		start := time.Now()
		p := startACP(b, bin, state)
		p.call(b, 1, "initialize", initializeParams)
		b.StartTimer()
		updates = p.call(b, 2, "session/load", params)
		b.StopTimer()
		total += time.Since(start)
		p.noPlugins(b)
		p.stop(b)
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-spawn→loaded/op")
	b.ReportMetric(float64(updates), "updates")
	b.ReportMetric(float64(n), "events")
}

// writeSession writes a session of about n events: turns of a prompt, a
// step with reasoning, text and a tool call, its result, then a step with
// the answer; every fifth turn also writes the todo list.
func writeSession(b *testing.B, dir string, n int) (string, int) {
	b.Helper()
	st := &session.Store{Dir: dir}
	s, err := st.Create(session.CreateOptions{Cwd: "/bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	text := strings.Repeat("The lock is taken in Open and released in Close. ", 4)
	args := `{"command":"grep -rn Lock host/","description":"Find the locks"}`
	add := func(ps ...event.Payload) {
		for _, p := range ps {
			if _, err := s.Append(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	for t := 1; s.Len() < n; t++ {
		c := fmt.Sprintf("call_%d", t)
		add(event.TurnStart{Turn: t}, event.UserMessage{Content: event.Text("Where is the lock taken? Turn " + fmt.Sprint(t))},
			event.StepStart{Turn: t, Step: 1},
			event.AssistantMessage{Turn: t, Step: 1, Reasoning: text, Text: text, ToolCalls: []event.ToolCallRequest{{ID: c, Name: "bash", Arguments: args}}},
			event.ToolCall{Turn: t, Step: 1, CallID: c, Name: "bash", Args: args})
		if t%5 == 0 {
			add(event.TodoWrite{Todos: []event.Todo{{Content: "Find the lock", Status: event.TodoCompleted}, {Content: "Explain it", Status: event.TodoInProgress}}})
		}
		add(event.ToolResult{Turn: t, Step: 1, CallID: c, Content: text + text},
			event.StepEnd{Turn: t, Step: 1}, event.StepStart{Turn: t, Step: 2},
			event.AssistantMessage{Turn: t, Step: 2, Text: text}, event.StepEnd{Turn: t, Step: 2},
			event.TurnEnd{Turn: t, Reason: event.ReasonCompleted})
	}
	return s.ID(), s.Len()
}
