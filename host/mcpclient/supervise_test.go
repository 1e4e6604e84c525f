package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// statuses records what OnStatus was told.
type statuses struct {
	mu   sync.Mutex
	list []Status
}

func (r *statuses) add(st Status) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, st)
}

// notices are the statuses marked Notice, in order.
func (r *statuses) notices() []Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Status
	for _, st := range r.list {
		if st.Notice {
			out = append(out, st)
		}
	}
	return out
}

func (r *statuses) states() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, st := range r.list {
		out = append(out, st.State)
	}
	return out
}

// fast are Options whose restarts come quickly: a test's.
func fast(rec *statuses, budget int) Options {
	return Options{Environ: os.Environ(), Backoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond,
		RestartBudget: budget, RestartWindow: time.Hour, StartTimeout: 30 * time.Second, OnStatus: rec.add}
}

func infoOf(t *testing.T, set *Set, name string) ServerInfo {
	t.Helper()
	for _, i := range set.Servers() {
		if i.Name == name {
			return i
		}
	}
	t.Fatalf("no server %s in %+v", name, set.Servers())
	return ServerInfo{}
}

// TestServerKilledMidCall: a server that dies during a call keeps its
// tools in the next listing, the next call starts it again and works;
// once the restart budget is spent the listing describes its tools as
// unavailable and a call gets that line. Each failure is one notice; a
// restart that works is one more ("up again").
func TestServerKilledMidCall(t *testing.T) {
	bin := testServer(t)
	rec := &statuses{}
	set := Start([]ServerConfig{{Name: "test", Command: bin, Source: "the test"}}, fast(rec, 2))
	defer set.Close()
	first := started(t, set)
	if !has(toolNames(first), "mcp__test__echo") {
		t.Fatalf("tools = %v", toolNames(first))
	}
	ctx := context.Background()
	for round := 1; round <= 2; round++ {
		if r := set.Call(ctx, "mcp__test__crash", nil); !r.IsError || !strings.Contains(r.Content, "crashing on purpose") {
			t.Fatalf("round %d: crash = %+v", round, r)
		}
		// the next step's listing still has the tools, as they were
		if got := toolNames(set.Tools()); !has(got, "mcp__test__echo") || len(got) != len(first) {
			t.Fatalf("round %d: after the crash the tools are %v, want %v", round, got, toolNames(first))
		}
		if r := set.Call(ctx, "mcp__test__echo", json.RawMessage(`{"text":"back"}`)); r.Content != "echo: back" || r.IsError {
			t.Fatalf("round %d: echo after the crash = %+v", round, r)
		}
		if i := infoOf(t, set, "test"); i.Status != StatusUp {
			t.Errorf("round %d: status %q (%s), want up", round, i.Status, i.Err)
		}
	}
	// The third death: the budget (2) is spent.
	if r := set.Call(ctx, "mcp__test__crash", nil); !r.IsError {
		t.Fatalf("crash = %+v", r)
	}
	var tools []ServerTool
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		tools = set.Tools()
		if len(tools) > 0 && strings.HasPrefix(tools[0].Spec.Description, "Unavailable: MCP server test is down") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the listing never said the server is down: %+v", tools)
		}
	}
	if len(tools) != len(first) {
		t.Errorf("down, %d tools are listed, want its %d", len(tools), len(first))
	}
	for _, tl := range tools {
		if !strings.HasPrefix(tl.Spec.Description, "Unavailable: MCP server test is down: ") || !strings.Contains(tl.Spec.Description, "exit status 3") {
			t.Errorf("%s's description = %q", tl.Spec.Name, tl.Spec.Description)
		}
	}
	r := set.Call(ctx, "mcp__test__echo", json.RawMessage(`{"text":"again"}`))
	if !r.IsError || !strings.HasPrefix(r.Content, "Unavailable: MCP server test is down") {
		t.Errorf("echo while down = %+v", r)
	}
	if i := infoOf(t, set, "test"); i.Status != StatusFailed || !strings.HasPrefix(i.Err, "Unavailable:") {
		t.Errorf("listing: %q %q", i.Status, i.Err)
	}
	set.Close()
	var got []string
	for _, n := range rec.notices() {
		kind := n.State
		if n.Down {
			kind = "down"
		}
		got = append(got, kind)
		if n.State == StatusFailed && !n.Down && !strings.Contains(n.Text(), "crashing on purpose") {
			t.Errorf("the notice of a crash lacks the server's stderr: %s", n.Text())
		}
	}
	want := []string{StatusFailed, StatusUp, StatusFailed, StatusUp, StatusFailed, "down"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("notices %v, want %v (states %v)", got, want, rec.states())
	}
}

// TestFirstStartRetried: a server whose first start fails is started
// again like one that died, bounded by the same budget: one notice for
// the failure, one when it is down, none for the retries between.
func TestFirstStartRetried(t *testing.T) {
	rec := &statuses{}
	set := Start([]ServerConfig{{Name: "broken", Command: "sh", Args: []string{"-c", "echo cannot start >&2; exit 2"}, Source: "f"}}, fast(rec, 3))
	defer set.Close()
	if tools := started(t, set); len(tools) != 0 {
		t.Fatalf("tools = %v", toolNames(tools))
	}
	if i := infoOf(t, set, "broken"); i.Status != StatusFailed && i.Status != StatusRestarting {
		t.Errorf("after its first start: %q %q", i.Status, i.Err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		set.Tools() // each step's listing starts it again when due
		if i := infoOf(t, set, "broken"); strings.HasPrefix(i.Err, "Unavailable: MCP server broken is down") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never down: %+v", infoOf(t, set, "broken"))
		}
	}
	r := set.Call(context.Background(), "mcp__broken__x", nil)
	if !r.IsError || !strings.HasPrefix(r.Content, "Unavailable: MCP server broken is down") {
		t.Errorf("call = %+v", r)
	}
	set.Close()
	n := rec.notices()
	if len(n) != 2 || n[0].State != StatusFailed || n[0].Down || !n[1].Down ||
		!strings.Contains(n[0].Text(), "cannot start") || !strings.Contains(n[0].Err, "MCP server broken (from f)") {
		t.Errorf("notices = %+v, want the failure with its stderr, then down", n)
	}
	restarts := 0
	for _, s := range rec.states() {
		if s == StatusRestarting {
			restarts++
		}
	}
	if restarts != 3 {
		t.Errorf("%d restarts, want the budget's 3: %v", restarts, rec.states())
	}
}

// TestSlowStart: Tools does not wait for a server slower than StartWait;
// it is listed from the listing after it is up, and its start timeout is
// its own (ServerConfig.StartTimeout over Options.StartTimeout).
func TestSlowStart(t *testing.T) {
	bin := testServer(t)
	rec := &statuses{}
	opts := fast(rec, 1)
	opts.StartWait, opts.StartTimeout = 50*time.Millisecond, time.Second
	set := Start([]ServerConfig{{Name: "slow", Command: bin, Args: []string{"-sleep", "2s"}, StartTimeout: time.Minute}}, opts)
	defer set.Close()
	if tools := set.Tools(); len(tools) != 0 {
		t.Fatalf("the first listing has the slow server's tools %v: it waited for it", toolNames(tools))
	}
	if st := rec.states(); has(st, StatusUp) {
		t.Errorf("states when first listed: %v, want it not up yet", st)
	}
	if tools := started(t, set); !has(toolNames(tools), "mcp__slow__echo") {
		t.Fatalf("once up, tools = %v (states %v)", toolNames(tools), rec.states())
	}
	set.Close() // OnStatus has been told all
	if st := rec.states(); strings.Join(st, ",") != "starting,up" {
		t.Errorf("states %v, want starting, up", st)
	}
	if n := rec.notices(); len(n) != 0 {
		t.Errorf("a slow start made notices %+v", n)
	}
}

// TestStatusInvalid: a refused configuration is one notice.
func TestStatusInvalid(t *testing.T) {
	rec := &statuses{}
	set := Start([]ServerConfig{{Name: "a b", Command: "x", Source: "f"}}, fast(rec, 1))
	set.Close()
	n := rec.notices()
	if len(n) != 1 || n[0].State != StatusInvalid || !strings.Contains(n[0].Text(), `MCP server name "a b"`) || !strings.Contains(n[0].Text(), "fix its entry in f") {
		t.Errorf("notices = %+v", n)
	}
}
