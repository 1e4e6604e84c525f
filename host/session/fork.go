package session

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
)

// Fork creates a session that starts with the history of session id up to
// seq at: its log's first at events are copies of id's events 0..at-1
// (data byte for byte, times of the copy), its header names id as
// parentSession and at as forkSeq, and its cwd is id's. The fork point
// must not fall inside a turn: events before it close every turn they
// open. at 0 means the whole history of id as of its last closed turn: all
// of its events, but a turn running (or interrupted, unrecovered) at the
// end. The images the copied events name are
// copied to the fork's blob folder. Nothing is shared: the parent's log is
// read without its hold (it may be open elsewhere) and never written, and
// later turns of either touch only its own log. The fork is returned open.
func (st *Store) Fork(id string, at int64) (*Session, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("fork session %q: not a valid session id", id)
	}
	if at < 0 {
		return nil, fmt.Errorf("fork session %s: negative fork point %d", id, at)
	}
	var recs []eventlog.Record
	h, err := st.backend().Read(id, 0, func(r eventlog.Record) error {
		if at == 0 || r.Seq < at {
			recs = append(recs, r)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("fork session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", id, err)
	}
	if at > int64(len(recs)) {
		return nil, fmt.Errorf("fork session %s at %d: it has %d events", id, at, len(recs))
	}
	if at == 0 && openTurn(recs) > 0 {
		recs = recs[:closedEnd(recs)]
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("fork session %s: it has no events to start from", id)
	}
	if open := openTurn(recs); open > 0 {
		return nil, fmt.Errorf("fork session %s at %d: the point is inside turn %d; fork at a seq after a turn/end", id, int64(len(recs)), open)
	}
	child, err := st.create(CreateOptions{Cwd: h.Cwd, Parent: id}, int64(len(recs)))
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", id, err)
	}
	if err := child.copyFrom(recs, st.blobSource(id)); err != nil {
		child.Close()
		return nil, fmt.Errorf("fork session %s into %s: %w", id, child.ID(), err)
	}
	if err := child.Sync(); err != nil {
		child.Close()
		return nil, fmt.Errorf("fork session %s into %s: %w", id, child.ID(), err)
	}
	return child, nil
}

// ForkSeq returns where s branches off its parent (eventlog.Header's
// ForkSeq); 0 when s is not a fork.
func (s *Session) ForkSeq() int64 { return s.header.ForkSeq }

// openTurn is the turn recs leave open, 0 for none.
func openTurn(recs []eventlog.Record) int {
	open := 0
	for _, r := range recs {
		switch event.Type(r.Type) {
		case event.TypeTurnStart:
			open = 1 // a turn/start that does not decode is refused by the copy
			if p, err := (event.Event{Type: event.TypeTurnStart, Data: r.Data}).Decode(); err == nil {
				open = max(p.(event.TurnStart).Turn, 1)
			}
		case event.TypeTurnEnd:
			open = 0
		}
	}
	return open
}

// closedEnd is the number of records up to and including the last
// turn/end: where the last closed turn ends.
func closedEnd(recs []eventlog.Record) int {
	for i := len(recs) - 1; i >= 0; i-- {
		if event.Type(recs[i].Type) == event.TypeTurnEnd {
			return i + 1
		}
	}
	// no turn ended: what came before the first turn
	for i, r := range recs {
		if event.Type(r.Type) == event.TypeTurnStart {
			return i
		}
	}
	return len(recs)
}

// copyFrom appends copies of recs, as the parent logged them, and copies
// the blobs they name from src (the parent's).
func (s *Session) copyFrom(recs []eventlog.Record, src *Session) error {
	for _, r := range recs {
		t := event.Type(r.Type)
		var payload event.Payload
		if event.IsKnown(t) {
			var err error
			if payload, err = decodePayload(t, r.Data); err != nil {
				return fmt.Errorf("copy event %d: %w", r.Seq, err)
			}
			if err := s.copyBlobs(payload, src); err != nil {
				return fmt.Errorf("copy event %d: %w", r.Seq, err)
			}
		}
		if _, err := s.append(t, payload, r.Data); err != nil {
			return fmt.Errorf("copy event %d: %w", r.Seq, err)
		}
	}
	return nil
}

// copyBlobs copies into s the blobs an event names (a prompt's or a tool
// result's images) from src, before the event: a logged hash always has
// its blob. One src lacks is left out (the event's text names the image
// all the same); one whose bytes do not hash to its name is refused.
func (s *Session) copyBlobs(p event.Payload, src *Session) error {
	for _, hash := range blobsOf(p) {
		data, err := src.Blob(hash)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("copy blob %s: %w", hash, err)
		}
		got, err := s.PutBlob(data)
		if err != nil {
			return err
		}
		if got != hash {
			return fmt.Errorf("copy blob %s: its bytes hash to %s", hash, got)
		}
	}
	return nil
}
