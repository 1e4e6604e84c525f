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

// flight counts the calls in flight on one process, and the steps holding
// it (Toolbox.HoldTools), so that a reload can drain it: a call enters
// before it uses the process and leaves when it is done; once the process
// is retired, the drain waits until no step holds it and no call is in
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
	n       int           // calls in flight
	holds   int           // steps holding the process
	shut    bool          // takes no new calls
	changed chan struct{} // closed (and replaced) whenever n or holds drop
	idle    func()        // called (outside mu) when n and holds drop to 0
}

// onIdle sets the function called, outside any lock, each time the last
// call leaves or the last hold ends (the idle timer arms then).
func (f *flight) onIdle(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.idle = fn
}

// tryShut shuts the gate if no call is in flight and no step holds the
// process, and reports whether it did: an idle stop then owns the process.
func (f *flight) tryShut() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shut || f.n > 0 || f.holds > 0 {
		return false
	}
	f.shut = true
	return true
}

// busy reports whether a call is in flight or a step holds the process.
func (f *flight) busy() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n > 0 || f.holds > 0
}

// idleNowLocked returns the idle hook to call once mu is released, if the
// process just became idle.
func (f *flight) idleNowLocked() func() {
	if f.n == 0 && f.holds == 0 && !f.shut {
		return f.idle
	}
	return nil
}

func newFlight() *flight {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &flight{abort: ctx, cancel: cancel, changed: make(chan struct{})}
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

// leave counts a call out.
func (f *flight) leave() {
	f.mu.Lock()
	f.n--
	f.signalLocked()
	idle := f.idleNowLocked()
	f.mu.Unlock()
	if idle != nil {
		idle()
	}
}

// hold counts a step in that listed this process; it keeps the process
// from being stopped by a drain until unhold. It fails once the gate is
// shut.
func (f *flight) hold() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shut {
		return false
	}
	f.holds++
	return true
}

// unhold counts a step out.
func (f *flight) unhold() {
	f.mu.Lock()
	f.holds--
	f.signalLocked()
	idle := f.idleNowLocked()
	f.mu.Unlock()
	if idle != nil {
		idle()
	}
}

func (f *flight) signalLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// wait blocks until cond holds (checked under mu, and after every change),
// ctx ends or timeout passes (0: no timeout). It reports whether cond held;
// when shutIf is set and cond held, the gate is shut in the same step.
func (f *flight) wait(ctx context.Context, timeout time.Duration, cond func() bool, shutIf bool) bool {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	for {
		f.mu.Lock()
		if cond() {
			if shutIf {
				f.shut = true
			}
			f.mu.Unlock()
			return true
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-expired:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// drain waits until no step holds the process (however long that takes:
// a step ends when its model answer and its calls do; Close cuts it short
// through ctx), then until no call is in flight, and shuts the gate. Calls
// may still enter while it waits (a call that listed this process before
// the swap). Once no step holds the process, a call still in flight after
// timeout, or once ctx ends, is cancelled (its ctx's cause is
// errDrainTimeout) and waited for at most grace; the gate is shut. It
// returns how many calls it cancelled.
func (f *flight) drain(ctx context.Context, timeout, grace time.Duration) int {
	f.wait(ctx, 0, func() bool { return f.holds == 0 }, false)
	if f.wait(ctx, timeout, func() bool { return f.n == 0 && f.holds == 0 }, true) {
		return 0
	}
	f.mu.Lock()
	f.shut = true
	n := f.n
	f.mu.Unlock()
	if n == 0 {
		return 0
	}
	f.cancel(errDrainTimeout)
	f.wait(context.Background(), grace, func() bool { return f.n == 0 }, false)
	return n
}

// inFlight returns the number of calls in flight.
func (f *flight) inFlight() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}
