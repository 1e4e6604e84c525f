package termview_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/termview"
)

// TestTerminalTurn: a turn's outcome is the exit status and one-line
// reason harness run documents, and Finish prints the usage line and how
// to continue.
func TestTerminalTurn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   string
		cancel   bool
		maxSteps int // 0: 1
		wantCode int
		wantErr  string
	}{
		{name: "completed", script: `{"text":"done","usage":{"input":10,"output":5}}`, wantCode: termview.ExitOK},
		{name: "token limit", script: `{"text":"cut","finish":"max_tokens"}`, wantCode: termview.ExitStopped, wantErr: "output token limit"},
		{name: "refusal", script: `{"text":"no","finish":"refusal"}`, wantCode: termview.ExitStopped, wantErr: "refused to continue"},
		{name: "step limit", script: `{"toolCalls":[{"name":"nope"}]}`, wantCode: termview.ExitStopped, wantErr: "stopped after 1 step (--max-steps)"},
		{name: "step limit of 2", script: `{"toolCalls":[{"name":"nope"}]}` + "\n" + `{"toolCalls":[{"name":"nope"}]}`, maxSteps: 2,
			wantCode: termview.ExitStopped, wantErr: "stopped after 2 steps (--max-steps)"},
		{name: "provider failure", script: `{"error":"the provider is down"}`, wantCode: termview.ExitFailed, wantErr: "the provider is down"},
		{name: "cancelled", script: `{"text":"x"}`, cancel: true, wantCode: termview.ExitCancelled, wantErr: "cancelled: the turn was stopped"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			model, err := script.Load(strings.NewReader(tc.script))
			if err != nil {
				t.Fatal(err)
			}
			rt, err := engine.New(engine.Config{StateDir: t.TempDir(), Model: model, ModelName: "script", MaxSteps: max(tc.maxSteps, 1)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = rt.Close() })
			s, err := rt.CreateSession(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = rt.CloseSession(s) })
			var out, errOut strings.Builder
			term := termview.Terminal{In: strings.NewReader(""), Out: &out, Err: &errOut}
			ctx, cancel := context.WithCancel(context.Background())
			if tc.cancel {
				cancel()
			}
			defer cancel()
			code, err := term.Turn(ctx, rt, s, "go")
			if code != tc.wantCode || (tc.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Turn = %d, %v; want %d and an error containing %q", code, err, tc.wantCode, tc.wantErr)
			}
			if tc.name != "completed" {
				return
			}
			if !strings.Contains(out.String(), "done") {
				t.Errorf("the answer is not rendered: %q", out.String())
			}
			term.Finish(rt, s, 0)
			want := "tokens: 10 in (0 cached) · 5 out\nsession " + s.ID() + " · continue with: harness run --session " + s.ID() + " PROMPT\n"
			if errOut.String() != want {
				t.Errorf("Finish wrote %q, want %q", errOut.String(), want)
			}
		})
	}
}

// TestIsTerminalDevNull: /dev/null is a character device but no terminal;
// `harness run … </dev/null` (a script, CI) has no one to ask, so a call
// that needs permission is denied saying how to allow it, instead of a
// y/n question read from /dev/null.
func TestIsTerminalDevNull(t *testing.T) {
	t.Parallel()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if termview.IsTerminal(f) {
		t.Errorf("IsTerminal(%s) = true, want false", os.DevNull)
	}
	if termview.IsTerminal(strings.NewReader("")) {
		t.Error("IsTerminal(a reader) = true, want false")
	}
}
