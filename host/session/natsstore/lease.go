package natsstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/harness-dev/harness/host/eventlog"
)

// LockedError reports that another writer holds a session's lease.
type LockedError struct {
	ID string
	// Holder is what the writer calls itself (host and pid).
	Holder string
	// TTL is how long its lease outlives the writer.
	TTL time.Duration
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("session %s is open on %s; close it there first, or, if that host is gone, open it again after its lease expires (%s)",
		e.ID, e.Holder, e.TTL)
}

// Unwrap returns eventlog.ErrLocked.
func (e *LockedError) Unwrap() error { return eventlog.ErrLocked }

// held is a lease this writer holds, renewed three times a TTL from the
// moment it is taken until release.
type held struct {
	b   *Backend
	id  string
	key string // id's key in the bucket

	mu     sync.Mutex // guards onLost and rev
	onLost func()     // told when another writer took the lease
	rev    uint64     // 0: not ours (lost)
	stop   chan struct{}
	done   chan struct{}
}

// lease takes the writer's lease of session id; a lease another writer
// holds yields a *LockedError.
func (b *Backend) lease(ctx context.Context, id string) (*held, error) {
	k := key(id)
	rev, err := b.leases.Create(ctx, k, []byte(b.opts.Holder))
	if err != nil {
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return nil, fmt.Errorf("take the lease of session %s: %w", id, err)
		}
		holder := "another host"
		if e, gerr := b.leases.Get(ctx, k); gerr == nil && len(e.Value()) > 0 {
			holder = string(e.Value())
		}
		return nil, &LockedError{ID: id, Holder: holder, TTL: b.opts.LeaseTTL}
	}
	h := &held{b: b, id: id, key: k, rev: rev, stop: make(chan struct{}), done: make(chan struct{})}
	go h.keep()
	return h, nil
}

// keep renews the lease until release. When it lapsed (the server was
// away longer than its TTL, say) it is taken again if no one else has;
// appends stay safe either way, each expecting the subject's last
// sequence its log wrote. When another writer has it, onLost is told.
func (h *held) keep() {
	defer close(h.done)
	t := time.NewTicker(h.b.opts.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		h.mu.Lock()
		ctx, cancel := h.b.ctx()
		rev, err := h.b.leases.Update(ctx, h.key, []byte(h.b.opts.Holder), h.rev)
		if err != nil && (errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyNotFound)) {
			rev, err = h.b.leases.Create(ctx, h.key, []byte(h.b.opts.Holder))
			if err != nil {
				h.rev = 0
				lost := h.onLost
				h.mu.Unlock()
				cancel()
				if lost != nil {
					lost()
				}
				return
			}
		}
		cancel()
		if err == nil {
			h.rev = rev
		}
		h.mu.Unlock() // other errors (the server away): try again next tick
	}
}

// release stops renewing and deletes the lease if it is still this
// writer's. Twice is a no-op.
func (h *held) release() {
	h.mu.Lock()
	select {
	case <-h.stop:
		h.mu.Unlock()
		return
	default:
		close(h.stop)
	}
	h.mu.Unlock()
	<-h.done
	if h.rev == 0 {
		return
	}
	ctx, cancel := h.b.ctx()
	defer cancel()
	_ = h.b.leases.Delete(ctx, h.key, jetstream.LastRevision(h.rev))
}
