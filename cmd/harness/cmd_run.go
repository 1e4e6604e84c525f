package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/termview"
)

func cmdRun(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("run", std.err, "harness run [flags] PROMPT   (PROMPT - reads it from stdin, as does no PROMPT when stdin is not a terminal)")
	c := bindConfig(fs, e)
	sessionID := fs.String("session", "", "continue this session (ids: harness sessions)")
	compact := fs.Bool("compact", false, "compact the history of --session now (a summary by the model replaces the older messages; the log keeps them) instead of running a turn")
	var cont bool
	fs.BoolVar(&cont, "continue", false, "continue the latest session of this folder")
	fs.BoolVar(&cont, "c", false, "short for --continue")
	var resume resumeFlag
	fs.Var(&resume, "resume", "continue a recent session of this folder, picked from a list on a terminal; --resume=ID continues that one")
	format := fs.String("output-format", formatText, "text (for people) | json (the result as one JSON object) | stream-json (a JSON object per line; docs/stream-json.schema.json)")
	var lim limits
	fs.IntVar(&lim.MaxTurns, "max-turns", 0, "most model steps in this run (0: --max-steps); ends with exit 3")
	fs.Float64Var(&lim.BudgetUSD, "max-budget-usd", 0, "end the turn, as budget with exit 4, before a step that would take this run's cost past this many dollars (models with prices); 0: none")
	fs.DurationVar(&lim.Timeout, "timeout", 0, "stop the turn after this long, with exit 4 (the turn is logged as cancelled); 0: none")
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	switch {
	case *format != formatText && *format != formatJSON && *format != formatStreamJSON:
		return exitUsage, fmt.Errorf("--output-format %q: use text, json or stream-json: %w", *format, errUsage)
	case lim.MaxTurns < 0 || lim.BudgetUSD < 0 || lim.Timeout < 0:
		return exitUsage, fmt.Errorf("--max-turns, --max-budget-usd and --timeout take 0 (none) or more: %w", errUsage)
	case btoi(*sessionID != "")+btoi(cont)+btoi(resume.set) > 1:
		return exitUsage, fmt.Errorf("--session, --continue and --resume each name the session: give one: %w", errUsage)
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if *compact && ((*sessionID == "" && !cont && !resume.set) || text != "") {
		return exitUsage, fmt.Errorf("--compact takes a session and no prompt: harness run --compact --session ID: %w", errUsage)
	}
	if text == "-" || (text == "" && !*compact && !termview.IsTerminal(std.in)) {
		b, err := io.ReadAll(std.in)
		if err != nil {
			return exitFailed, fmt.Errorf("read the prompt from stdin: %w", err)
		}
		text = strings.TrimSpace(string(b))
	}
	picking := resume.set && resume.id == "" // the list comes first, prompt or not
	if text == "" && !*compact && !picking {
		return exitUsage, fmt.Errorf("no prompt: harness run [flags] PROMPT, e.g. harness run \"explain this repository\": %w", errUsage)
	}
	lim.Hide = toolPatterns(c.DisallowedTools)
	id := *sessionID
	if resume.set && resume.id != "" {
		id = resume.id
	}
	if cont || picking {
		// Which session: from the logs alone, before a model or a key is
		// needed (a list to pick from, or none to continue, says so
		// first).
		rt, err := logsRuntime(ctx, c, e)
		if err != nil {
			return exitFailed, err
		}
		if cont {
			id, err = latestSession(rt)
		} else {
			id, err = pickSession(rt, std)
		}
		rt.Close()
		if err != nil {
			return exitUsage, err
		}
	}
	h, err := newTermApp(c, e, std, nil)
	if err != nil {
		return exitFailed, err
	}
	defer h.Close()
	if text == "" && !*compact {
		return exitUsage, fmt.Errorf("no prompt: harness run [flags] PROMPT, e.g. harness run \"explain this repository\": %w", errUsage)
	}
	s, err := h.OpenOrCreateSession(id, "")
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
	if id != "" && (c.ModeSet || c.Yes) {
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
	var code int
	if *format == formatText {
		if lim.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
			defer cancel()
		}
		h.term.Limit = func(loop *agent.Loop, s *session.Session) error { return lim.apply(h.Runtime, s, loop, from) }
		code, err = h.term.Turn(ctx, h.Runtime, s, text)
		if code == exitCancelled && ctx.Err() == context.DeadlineExceeded {
			code, err = exitBudget, fmt.Errorf("timed out after %s (--timeout): the turn was stopped and logged as cancelled", lim.Timeout)
		}
	} else {
		// Nobody is asked: stdout is for the program reading it, and
		// stdin held the prompt or is not read.
		code, err = headlessTurn(ctx, h.Runtime, s, text, *format, lim, nil, std.out)
	}
	h.term.Finish(h.Runtime, s, from)
	if cerr := h.CloseSession(s); cerr != nil && err == nil {
		err = cerr
	}
	return code, err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
