package toolbox

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errDrainTimeout is the cancel cause of a call on a retired process that
// outlived the drain timeout.
var errDrainTimeout = errors.New("drain timeout")

// flight counts the calls in flight on one process, so that a reload can
// drain it: a call enters before it uses the process and leaves when it is
// done; once the process is retired, the drain waits until no call is in
// flight and then shuts the gate, in one step, so that a call either
// entered before (and is waited for) or finds the gate shut (and routes
// through the new snapshot, already stored).
type flight struct {
	// abort is cancelled when a drain times out; calls in flight stop
	// (context.AfterFunc in Call).
	abort  context.Context
	cancel context.CancelCauseFunc

	mu sync.Mutex
	// mu guards the fields below.
	n    int           // calls in flight
	shut bool          // takes no new calls
	idle chan struct{} // set by a drain waiting for n to reach 0; closed then
}

func newFlight() *flight {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &flight{abort: ctx, cancel: cancel}
}

// enter counts a call in, unless the gate is shut.
func (f *flight) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shut {
		return false
	}
	f.n++
	return true
}

// leave counts a call out; the last one out during a drain shuts the gate.
func (f *flight) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 && f.idle != nil {
		f.shut = true
		close(f.idle)
		f.idle = nil
	}
}

// drain waits until no call is in flight and shuts the gate. Calls may
// still enter while it waits (a call that listed this process before the
// swap). After timeout, or once ctx ends, it shuts the gate, cancels the
// calls still in flight (their ctx's cause is errDrainTimeout) and waits at
// most grace for them to return. It returns how many it cancelled.
func (f *flight) drain(ctx context.Context, timeout, grace time.Duration) int {
	f.mu.Lock()
	if f.n == 0 {
		f.shut = true
		f.mu.Unlock()
		return 0
	}
	idle := make(chan struct{})
	f.idle = idle
	f.mu.Unlock()

	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-idle:
		return 0
	case <-t.C:
	case <-ctx.Done():
	}
	f.mu.Lock()
	f.shut = true
	n := f.n
	f.mu.Unlock()
	if n == 0 {
		return 0
	}
	f.cancel(errDrainTimeout)
	g := time.NewTimer(grace)
	defer g.Stop()
	select {
	case <-idle:
	case <-g.C:
	}
	return n
}

// inFlight returns the number of calls in flight.
func (f *flight) inFlight() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}
