package acpbridge

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// newSlogger returns a slog.Logger that writes to log, for the SDK, which
// logs through slog (to slog.Default, on stderr, unless told otherwise),
// and a function that stops it: the SDK's goroutines may still log after
// the connection ends, and nothing should reach log once Serve returns.
func newSlogger(log hclog.Logger) (*slog.Logger, func()) {
	g := &logGate{}
	return slog.New(slogHandler{log: log, gate: g}), g.close
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

// slogHandler forwards slog records to an hclog.Logger. Groups are
// flattened into dotted keys.
type slogHandler struct {
	log    hclog.Logger
	gate   *logGate
	attrs  []any
	prefix string
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
	args := make([]any, 0, len(h.attrs)+2*r.NumAttrs())
	args = append(args, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		args = append(args, h.prefix+a.Key, a.Value.Resolve().Any())
		return true
	})
	h.gate.mu.RLock()
	defer h.gate.mu.RUnlock()
	if !h.gate.closed {
		h.log.Log(hclogLevel(r.Level), r.Message, args...)
	}
	return nil
}

func (h slogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := h
	n.attrs = slices.Clone(h.attrs)
	for _, a := range attrs {
		n.attrs = append(n.attrs, h.prefix+a.Key, a.Value.Resolve().Any())
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
