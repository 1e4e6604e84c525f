package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/harness-dev/harness/host/eventlog"
)

// ErrReadOnly is matched by the error of an append to a mirror (Mirror):
// the session is another process's to write.
var ErrReadOnly = errors.New("session is read-only here")

// Mirror opens session id read-only while another process — on this host,
// or on another with a shared store — holds it (Open failed with held, an
// error matching eventlog.ErrLocked): the events logged so far, then each
// one the writer appends (Watch), projected as Open projects them, so that
// the session's followers see the writer's turn as it happens. Appending
// to it fails with an error matching ErrReadOnly and quoting held.
// Nothing is recovered: an open turn is its writer's to end. Close stops
// following.
func (st *Store) Mirror(id string, held error) (*Session, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("open session %q: not a valid session id", id)
	}
	path := st.where(id)
	s := &Session{now: st.now, lastUserSeq: -1, usageAt: -1, blobs: st.blobDir(id), blobBackend: st.blobBackend()}
	h, err := st.backend().Read(id, 0, func(r eventlog.Record) error { return s.replay(path, r) })
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("open session %s: %w", id, ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.header = h
	s.log = &mirrorLog{h: h, held: held, stop: cancel}
	go s.mirror(ctx, st, path, int64(len(s.events)))
	return s, nil
}

// mirror projects what the writer appends from seq next on, until ctx is
// done or the log cannot be followed (then the mirror shows no more).
func (s *Session) mirror(ctx context.Context, st *Store, path string, next int64) {
	for ev, err := range st.Watch(ctx, s.header.ID, next) {
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		err := s.replay(path, eventlog.Record{Seq: ev.Seq, Time: ev.Time, Type: string(ev.Type), Data: ev.Data})
		s.notify()
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// ReadOnly reports whether s is a mirror (Mirror): another process's to
// write.
func (s *Session) ReadOnly() bool {
	_, ok := s.log.(*mirrorLog)
	return ok
}

// mirrorLog is the Log of a mirror: it refuses to append.
type mirrorLog struct {
	h    eventlog.Header
	held error
	stop context.CancelFunc
}

func (l *mirrorLog) Header() eventlog.Header { return l.h }
func (l *mirrorLog) Next() int64             { return -1 }
func (l *mirrorLog) Sync() error             { return nil }
func (l *mirrorLog) Close() error            { l.stop(); return nil }

func (l *mirrorLog) Append(eventlog.Record) error {
	return fmt.Errorf("%w: %w", ErrReadOnly, l.held)
}
