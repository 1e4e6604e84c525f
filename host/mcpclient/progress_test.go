package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-dev/harness/internal/logtest"
)

// TestProgress: every call carries a progress token (the test server
// refuses a call without one); the server's notifications/progress about
// it reach the call's WithProgress as lines, while the call runs, and
// those with a token harness did not send are ignored; cancelling the
// call still sends notifications/cancelled (the server sees its request's
// context end). No timing is asserted: the held call ends only when the
// test cancels it, after its progress arrived.
func TestProgress(t *testing.T) {
	bin := testServer(t)
	var logBuf logtest.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &logBuf, Level: hclog.Debug})
	set := Start([]ServerConfig{{Name: "test", Command: bin}}, Options{Logger: log, Environ: os.Environ()})
	defer set.Close()

	var mu sync.Mutex
	var got strings.Builder
	record := func(text string) {
		mu.Lock()
		defer mu.Unlock()
		got.WriteString(text)
	}
	// A call without WithProgress has a token too.
	if r := set.Call(context.Background(), "mcp__test__progress", json.RawMessage(`{"steps":2}`)); r.IsError || r.Content != "done after 2 steps" {
		t.Fatalf("progress without a listener = %+v", r)
	}
	r := set.Call(WithProgress(context.Background(), record), "mcp__test__progress", json.RawMessage(`{"steps":3}`))
	if r.IsError || r.Content != "done after 3 steps" {
		t.Fatalf("progress = %+v", r)
	}
	// The notifications come before the answer on the pipe; their lines
	// may still be queued (spaced by progressEvery) when the call returns
	// and are then dropped, so what arrived is a prefix of them.
	mu.Lock()
	text := got.String()
	mu.Unlock()
	if want := "step 1 (1/3)\nstep 2 (2/3)\nstep 3 (3/3)\n"; !strings.HasPrefix(want, text) || strings.Contains(text, "stray") {
		t.Errorf("live output %q, want a prefix of %q and no stray notification", text, want)
	}

	// Held: the progress arrives while the call runs; then cancel.
	lines := make(chan string, 16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan string, 1)
	go func() {
		r := set.Call(WithProgress(ctx, func(s string) { lines <- s }), "mcp__test__progress", json.RawMessage(`{"steps":2,"hold":true}`))
		done <- r.Content
	}()
	var live string
	for !strings.Contains(live, "step 2 (2/2)\n") {
		select {
		case s := <-lines:
			live += s
		case c := <-done:
			t.Fatalf("the held call ended (%q) before its progress arrived (%q)", c, live)
		case <-time.After(30 * time.Second):
			t.Fatalf("no progress after 30 s: %q", live)
		}
	}
	if live != "step 1 (1/2)\nstep 2 (2/2)\n" {
		t.Errorf("live output %q", live)
	}
	cancel()
	if c := <-done; c != "cancelled" {
		t.Errorf("cancelled call = %q", c)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logBuf.String(), "progress call cancelled by the client") {
		if time.Now().After(deadline) {
			t.Fatalf("the server never saw notifications/cancelled:\n%s", logBuf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// the server is still up: a cancel is not a failure
	if r := set.Call(context.Background(), "mcp__test__echo", json.RawMessage(`{"text":"still"}`)); r.Content != "echo: still" {
		t.Errorf("echo after the cancel = %+v", r)
	}
}

func TestProgressLine(t *testing.T) {
	long := strings.Repeat("é", maxProgressLine)
	cases := []struct {
		n    mcp.ProgressNotificationParams
		want string
	}{
		{mcp.ProgressNotificationParams{Message: "copying", Progress: 3, Total: 10}, "copying (3/10)\n"},
		{mcp.ProgressNotificationParams{Progress: 0.5}, "progress 0.5\n"},
		{mcp.ProgressNotificationParams{Message: "two\nlines\x00", Progress: 1}, "two lines\x00 (1)\n"},
		{mcp.ProgressNotificationParams{Message: long, Progress: 1}, strings.Repeat("é", maxProgressLine/2) + "… (1)\n"},
	}
	for _, c := range cases {
		if got := progressLine(&c.n); got != c.want {
			t.Errorf("progressLine(%+v) = %q, want %q", c.n, got, c.want)
		}
	}
}
