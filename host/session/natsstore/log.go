package natsstore

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/harness-dev/harness/host/eventlog"
)

// log is a session held by this writer: it appends with the expected last
// sequence of its subject and renews its lease until Close.
type log struct {
	b    *Backend
	h    eventlog.Header
	subj string

	mu     sync.Mutex // guards next, last, lost and closed; held across an Append
	next   int64
	last   uint64 // stream sequence of the subject's last message
	lost   error  // why Append is refused for good
	closed bool

	lease *held
}

func (b *Backend) newLog(h eventlog.Header, lease *held, last uint64, next int64) *log {
	l := &log{b: b, h: h, subj: b.subject(h.ID), next: next, last: last, lease: lease}
	lease.mu.Lock()
	lease.onLost = l.leaseLost
	lease.mu.Unlock()
	return l
}

// leaseLost refuses every later Append: another writer took the session.
func (l *log) leaseLost() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost == nil {
		l.lost = fmt.Errorf("append to session %s: this host lost its lease (it was not renewed within %s); open the session again", l.h.ID, l.b.opts.LeaseTTL)
	}
}

// Header implements session.Log.
func (l *log) Header() eventlog.Header { return l.h }

// Next implements session.Log.
func (l *log) Next() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// Append implements session.Log: it returns once JetStream acknowledged r.
func (l *log) Append(r eventlog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return fmt.Errorf("append to session %s: the log is closed", l.h.ID)
	case l.lost != nil:
		return l.lost
	case r.Seq != l.next:
		return fmt.Errorf("append to session %s: seq %d, want %d", l.h.ID, r.Seq, l.next)
	}
	line, err := eventlog.MarshalRecord(r)
	if err != nil {
		return fmt.Errorf("append to session %s: %w", l.h.ID, err)
	}
	ctx, cancel := l.b.ctx()
	defer cancel()
	ack, err := l.b.js.Publish(ctx, l.subj, line,
		jetstream.WithExpectStream(l.b.opts.Stream), jetstream.WithExpectLastSequencePerSubject(l.last))
	if err != nil && !wrongLast(err) {
		// The answer may be what was lost: if the subject's last message
		// is this record, right after the one we knew, it was stored.
		ack, err = l.landed(line, err)
	}
	if err != nil {
		if wrongLast(err) {
			l.lost = fmt.Errorf("append to session %s: another writer wrote to it (this host's lease lapsed); open it again", l.h.ID)
			return l.lost
		}
		return fmt.Errorf("append to session %s: %w", l.h.ID, err)
	}
	l.last = ack.Sequence
	l.next++
	return nil
}

// landed checks, after a publish that failed with err, whether line was
// stored all the same as the subject's next message.
func (l *log) landed(line []byte, err error) (*jetstream.PubAck, error) {
	ctx, cancel := l.b.ctx()
	defer cancel()
	m, gerr := l.b.stream.GetLastMsgForSubject(ctx, l.subj)
	if gerr != nil || m.Sequence == l.last {
		return nil, err
	}
	if bytes.Equal(m.Data, line) {
		return &jetstream.PubAck{Stream: l.b.opts.Stream, Sequence: m.Sequence}, nil
	}
	return nil, &jetstream.APIError{ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence, Description: "wrong last sequence"}
}

// Sync implements session.Log: an acknowledged append is already stored.
func (l *log) Sync() error { return nil }

// Close implements session.Log: it stops renewing the lease and releases
// it. Closing twice returns nil.
func (l *log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	l.lease.release()
	return nil
}
