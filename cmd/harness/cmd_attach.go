package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/termsafe"
	"github.com/harness-dev/harness/termview"
)

// cmdAttach follows a session another process — or, with --store, another
// host — is running, read-only: it shows the session's last turn as the
// terminal view does, then every event as it is logged, until Ctrl-C.
func cmdAttach(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("attach", std.err, "harness attach [flags] SESSION")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	if fs.NArg() != 1 {
		return exitUsage, fmt.Errorf("attach needs one session id (harness sessions lists them): %w", errUsage)
	}
	id := fs.Arg(0)
	rt, err := logsRuntime(ctx, c, e) // starts nothing: reads the log only
	if err != nil {
		return exitFailed, err
	}
	evs, err := rt.SessionEvents(id)
	if err != nil {
		return exitFailed, fmt.Errorf("%w; list them with harness sessions", err)
	}
	src := &watched{rt: rt, id: id, events: evs[:lastTurn(evs)]}
	fmt.Fprintf(std.err, "attached to session %s (read-only); Ctrl-C to detach\n", termsafe.Line(id))
	color := e.get("NO_COLOR") == "" && e.get("TERM") != "dumb" && termview.IsTerminal(std.out)
	view := termview.NewWatcher(std.out, src, color)
	stop := view.Follow()
	<-ctx.Done()
	stop()
	if err := src.failed(); err != nil {
		return exitFailed, err
	}
	return exitOK, nil
}

// lastTurn is the index of the last turn's start in evs (0 when none).
func lastTurn(evs []event.Event) int {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == event.TypeTurnStart {
			return i
		}
	}
	return 0
}

// watched is a session another process writes, as termview reads one: the
// events seen so far, and those to come.
type watched struct {
	rt *engine.Runtime
	id string

	mu     sync.Mutex
	events []event.Event
	err    error
}

// Events implements termview.Source.
func (w *watched) Events() []event.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.events
}

// Follow implements termview.Source.
func (w *watched) Follow(ctx context.Context, from int64) iter.Seq[event.Event] {
	return func(yield func(event.Event) bool) {
		for ev, err := range w.rt.WatchSession(ctx, w.id, from) {
			w.mu.Lock()
			if err != nil {
				w.err = err
			} else if ev.Seq == int64(len(w.events)) {
				w.events = append(w.events, ev)
			}
			w.mu.Unlock()
			if err != nil || !yield(ev) {
				return
			}
		}
	}
}

func (w *watched) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil && !errors.Is(w.err, context.Canceled) {
		return w.err
	}
	return nil
}
