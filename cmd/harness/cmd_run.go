package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/termview"
)

func cmdRun(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("run", std.err, "harness run [flags] PROMPT   (PROMPT - reads it from stdin)")
	c := bindConfig(fs, e)
	sessionID := fs.String("session", "", "continue this session (ids: harness sessions)")
	if code, done := parseFlags(fs, args); done {
		return code, nil
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if text == "-" {
		b, err := io.ReadAll(std.in)
		if err != nil {
			return exitFailed, fmt.Errorf("read the prompt from stdin: %w", err)
		}
		text = strings.TrimSpace(string(b))
	}
	if text == "" {
		return exitUsage, fmt.Errorf("no prompt: harness run [flags] PROMPT, e.g. harness run \"explain this repository\": %w", errUsage)
	}
	h, err := newTermApp(c, e, std, nil)
	if err != nil {
		return exitFailed, err
	}
	defer h.Close()
	s, err := h.openSession(*sessionID)
	if err != nil {
		return exitFailed, err
	}
	if err := h.StartTools(ctx); err != nil {
		h.CloseSession(s)
		return exitFailed, err
	}
	h.ConnectMCP(s, nil)
	code, err := h.turn(ctx, s, text, std)
	fmt.Fprintf(std.err, "session %s · continue with: harness run --session %s PROMPT\n", s.ID(), s.ID())
	if cerr := h.CloseSession(s); cerr != nil && err == nil {
		err = cerr
	}
	return code, err
}

// turn runs one turn of s on text, rendering it to std.out, and maps its
// outcome to an exit code and a one-line reason.
func (h *app) turn(ctx context.Context, s *session.Session, text string, std stdio) (int, error) {
	loop, err := h.Loop(s.Cwd())
	if err != nil {
		return exitFailed, err
	}
	view := termview.New(std.out, s, isTerminal(std.out) && h.color)
	var asker permission.Asker
	if isTerminal(std.in) {
		asker = termview.NewAsker(view, std.in)
	}
	stop := view.Follow()
	out := h.Run(ctx, s, loop, event.Text(text), view, asker)
	stop()
	switch out.Reason {
	case event.ReasonCompleted:
		return exitOK, nil
	case event.ReasonCancelled:
		return exitCancelled, fmt.Errorf("cancelled: the turn was stopped and logged as cancelled")
	case event.ReasonMaxSteps:
		return exitStopped, fmt.Errorf("stopped after %d steps (--max-steps); continue the session to let the model go on", h.cfg.MaxSteps)
	case event.ReasonMaxTokens:
		return exitStopped, fmt.Errorf("stopped: the model reached its output token limit")
	case event.ReasonRefusal:
		return exitStopped, fmt.Errorf("stopped: the model refused to continue")
	default:
		if out.Err != nil {
			return exitFailed, out.Err
		}
		return exitFailed, fmt.Errorf("the turn ended: %s", out.Reason)
	}
}
