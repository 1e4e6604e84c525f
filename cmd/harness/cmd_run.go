package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/termview"
)

func cmdRun(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("run", std.err, "harness run [flags] PROMPT   (PROMPT - reads it from stdin)")
	c := bindConfig(fs, e)
	sessionID := fs.String("session", "", "continue this session (ids: harness sessions)")
	compact := fs.Bool("compact", false, "compact the history of --session now (a summary by the model replaces the older messages; the log keeps them) instead of running a turn")
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if *compact {
		if *sessionID == "" || text != "" {
			return exitUsage, fmt.Errorf("--compact takes a session and no prompt: harness run --compact --session ID: %w", errUsage)
		}
		return compactSession(ctx, c, e, std, *sessionID)
	}
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
	// A continued session keeps its mode unless one is given.
	if *sessionID != "" && (c.ModeSet || c.Yes) {
		if err := h.SetSessionMode(s, h.Policy().Mode, engine.ModeByFlag); err != nil {
			h.CloseSession(s)
			return exitFailed, err
		}
	}
	if err := h.StartTools(ctx); err != nil {
		h.CloseSession(s)
		return exitFailed, err
	}
	h.ConnectMCP(s, nil)
	from := int64(s.Len())
	code, err := h.turn(ctx, s, text, std)
	if line := termview.UsageLine(h.Usage(s, from)); line != "" {
		if h.color && isTerminal(std.err) {
			line = "\x1b[2m" + line + "\x1b[0m"
		}
		fmt.Fprintln(std.err, line)
	}
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
	out := h.Prompt(ctx, s, loop, event.Text(text), view, asker) // slash commands too
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

// compactSession compacts a stored session's history: harness run --compact.
func compactSession(ctx context.Context, c *config, e env, std stdio, id string) (int, error) {
	h, err := newTermApp(c, e, std, nil)
	if err != nil {
		return exitFailed, err
	}
	defer h.Close()
	s, err := h.openSession(id)
	if err != nil {
		return exitFailed, err
	}
	defer h.CloseSession(s)
	view := termview.New(std.out, s, isTerminal(std.out) && h.color)
	stop := view.Follow()
	out := h.Compact(ctx, s, nil, view)
	stop()
	switch {
	case out.Reason == event.ReasonCancelled:
		return exitCancelled, fmt.Errorf("cancelled: the compaction was stopped; the history is unchanged")
	case out.Err != nil:
		return exitFailed, fmt.Errorf("compact session %s: %w", id, out.Err)
	}
	return exitOK, nil
}
