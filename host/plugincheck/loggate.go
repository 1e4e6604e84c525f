package plugincheck

import (
	"io"
	"sync"
)

// LogGate is the output for Options.Logger: go-plugin logs from its own
// goroutines, some of which outlive a failed launch, so the checks may
// log after Binaries or AllAttached returned. LogGate writes to its
// writer until Close, then drops what it gets, so that the log never
// races with the caller's next use of that writer.
type LogGate struct {
	mu sync.Mutex
	// mu guards the fields below.
	w      io.Writer
	closed bool
}

// NewLogGate returns an open gate to w.
func NewLogGate(w io.Writer) *LogGate { return &LogGate{w: w} }

// Write implements io.Writer.
func (g *LogGate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	return g.w.Write(p)
}

// Close drops whatever is written from now on.
func (g *LogGate) Close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}
