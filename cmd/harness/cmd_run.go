package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
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
	if *compact && (*sessionID == "" || text != "") {
		return exitUsage, fmt.Errorf("--compact takes a session and no prompt: harness run --compact --session ID: %w", errUsage)
	}
	if text == "-" {
		b, err := io.ReadAll(std.in)
		if err != nil {
			return exitFailed, fmt.Errorf("read the prompt from stdin: %w", err)
		}
		text = strings.TrimSpace(string(b))
	}
	if text == "" && !*compact {
		return exitUsage, fmt.Errorf("no prompt: harness run [flags] PROMPT, e.g. harness run \"explain this repository\": %w", errUsage)
	}
	h, err := newTermApp(c, e, std, nil)
	if err != nil {
		return exitFailed, err
	}
	defer h.Close()
	s, err := h.OpenOrCreateSession(*sessionID, "")
	if err != nil {
		return exitFailed, err
	}
	if *compact {
		defer h.CloseSession(s)
		// The tools (their descriptions are cached; no plugin starts) are
		// part of what the compaction counts as the context after it.
		if err := h.StartTools(ctx); err != nil {
			return exitFailed, err
		}
		return h.term.Compact(ctx, h.Runtime, s)
	}
	// A continued session keeps its mode unless one is given.
	if *sessionID != "" && (c.ModeSet || c.Yes) {
		if err := h.SetSessionMode(s, h.Policy().Mode, event.ByFlag); err != nil {
			h.CloseSession(s)
			return exitFailed, err
		}
	}
	// A session in auto is not continued where the sandbox cannot hold it.
	if h.SessionMode(s) == permission.ModeAuto {
		if err := h.AutoRefusal(); err != nil {
			h.CloseSession(s)
			return exitUsage, fmt.Errorf("session %s is in auto mode, which harness refuses here: %w; continue it with --mode ask (or another mode): %w", s.ID(), err, errUsage)
		}
	}
	if err := h.StartTools(ctx); err != nil {
		h.CloseSession(s)
		return exitFailed, err
	}
	stopMCP := h.term.WatchMCP(h.Runtime, s) // a server's failures, one line each
	defer stopMCP()
	h.ConnectMCP(s, nil)
	h.term.Header(h.Runtime, s)
	from := int64(s.Len())
	code, err := h.term.Turn(ctx, h.Runtime, s, text)
	h.term.Finish(h.Runtime, s, from)
	if cerr := h.CloseSession(s); cerr != nil && err == nil {
		err = cerr
	}
	return code, err
}
