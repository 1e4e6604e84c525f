package acpbridge

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// newSlogger returns a slog.Logger that writes to log, for the JSON-RPC
// connection, which logs through slog, and a function that stops it: the
// connection's request goroutines may still log after Serve has given up
// on them, and nothing should reach log once Serve returns.
//
// log stamps its own lines (hclog does unless built with DisableTime), so
// the records' times are not written: see [slogHandler].
func newSlogger(log hclog.Logger) (*slog.Logger, func()) {
	h := newSlogHandler(log, false)
	return slog.New(h), h.gate.close
}

// newSlogHandler returns a handler forwarding to log, open until its gate
// closes. recordTime says whether the handler writes each record's time
// itself: set it only for a logger built with DisableTime.
func newSlogHandler(log hclog.Logger, recordTime bool) slogHandler {
	return slogHandler{log: log, gate: &logGate{}, recordTime: recordTime}
}

// logGate lets records through until closed.
type logGate struct {
	mu     sync.RWMutex
	closed bool
}

func (g *logGate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
}

// slogHandler forwards slog records to an hclog.Logger and keeps the
// slog.Handler contract (testing/slogtest checks it): groups — from
// WithGroup or from group values — become dotted keys ("G.a"), a group
// with an empty key is inlined, an empty group and an attr with an empty
// key and a nil value are dropped, LogValuers are resolved.
//
// Time. hclog stamps every line itself, with its own clock and format, at
// the moment it writes the line — a few microseconds after slog.Logger set
// Record.Time. One logger cannot leave the stamp off one line, so a record
// with a zero time (which slog.Logger never makes) still gets the line's
// stamp from a logger that stamps. We keep hclog's stamp rather than add
// the record's time beside it: every line of the process log then carries
// one time, in one format, from one clock. A logger built with DisableTime
// writes no stamp; with recordTime set, the handler then writes the
// record's time under "time", and none for a zero time, as slog asks.
type slogHandler struct {
	log        hclog.Logger
	gate       *logGate
	attrs      []any  // key/value pairs from WithAttrs, keys prefixed
	prefix     string // the open groups, each followed by "."
	recordTime bool
}

func hclogLevel(l slog.Level) hclog.Level {
	switch {
	case l >= slog.LevelError:
		return hclog.Error
	case l >= slog.LevelWarn:
		return hclog.Warn
	case l >= slog.LevelInfo:
		return hclog.Info
	}
	return hclog.Debug
}

func (h slogHandler) Enabled(_ context.Context, l slog.Level) bool {
	return h.log.GetLevel() != hclog.Off && hclogLevel(l) >= h.log.GetLevel()
}

func (h slogHandler) Handle(_ context.Context, r slog.Record) error {
	args := make([]any, 0, len(h.attrs)+2*r.NumAttrs()+2)
	if h.recordTime && !r.Time.IsZero() {
		args = append(args, slog.TimeKey, r.Time)
	}
	args = append(args, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		args = appendAttr(args, h.prefix, a)
		return true
	})
	h.gate.mu.RLock()
	defer h.gate.mu.RUnlock()
	if !h.gate.closed {
		h.log.Log(hclogLevel(r.Level), r.Message, args...)
	}
	return nil
}

// appendAttr appends a's key/value pairs to args, its key after prefix:
// one pair for a plain value, one per member for a group, none for an
// empty attr or an empty group.
func appendAttr(args []any, prefix string, a slog.Attr) []any {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return args
	}
	if a.Value.Kind() != slog.KindGroup {
		return append(args, prefix+a.Key, a.Value.Any())
	}
	if a.Key != "" {
		prefix += a.Key + "."
	}
	for _, m := range a.Value.Group() {
		args = appendAttr(args, prefix, m)
	}
	return args
}

func (h slogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := h
	n.attrs = slices.Clone(h.attrs)
	for _, a := range attrs {
		n.attrs = appendAttr(n.attrs, h.prefix, a)
	}
	return n
}

func (h slogHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	n := h
	n.prefix = h.prefix + name + "."
	return n
}
