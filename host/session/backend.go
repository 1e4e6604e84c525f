package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/ownership"
)

// Backend is the session store as a contract: where a [Store] keeps the logs
// of its sessions. A Store works on any Backend; [JSONL], a directory of
// files, is the one implementation today and the default. A Backend knows
// the envelope of a record (package eventlog's Header and Record), never the
// meaning of a payload: the turn structure, the projections, recovery of an
// interrupted turn and the followers belong to [Session], above it.
//
// Package storetest is the conformance suite every Backend must pass.
type Backend interface {
	// Create makes the log of a new session with header h (h.ID names it)
	// and returns it held: this caller is its single writer until Close.
	// An id already taken yields an error matching fs.ErrExist, and the
	// existing log is left untouched.
	Create(h eventlog.Header) (Log, error)
	// Open takes the single-writer hold on log id, hands every record to
	// visit in seq order (a visit error fails Open and is returned as is)
	// and returns the log held. An unknown id yields an error matching
	// fs.ErrNotExist; a log another writer holds — in this process or any
	// other — one matching eventlog.ErrLocked, at once, without waiting.
	// A crash never leaves a hold behind.
	Open(id string, visit func(eventlog.Record) error) (Log, error)
	// Read reads log id without taking the hold — another writer may be
	// appending — and hands visit every record whose seq is from or more, in
	// order. A nil visit reads only the header. Errors as for Open, but a
	// held log is read, never refused.
	Read(id string, from int64, visit func(eventlog.Record) error) (eventlog.Header, error)
	// IDs returns the id of every session, in no particular order.
	IDs() ([]string, error)
}

// Log is one session's log, held by its single writer. Its methods are safe
// for concurrent use.
type Log interface {
	// Header returns the header the log was created with.
	Header() eventlog.Header
	// Next returns the seq the next Append must carry: the number of
	// records.
	Next() int64
	// Append writes r. It is an optimistic append: r.Seq must be Next(),
	// else Append fails and writes nothing. Once Append returns, r survives
	// a crash of this process.
	Append(r eventlog.Record) error
	// Sync makes every record appended so far durable.
	Sync() error
	// Close syncs the log and releases the hold. Closing twice returns nil.
	Close() error
}

// BlobBackend is an optional capability of a Backend that keeps the
// sessions' blobs (the bytes of their images) itself; a Backend without
// it that is not [JSONL] has no blobs. PutBlob stores data as blob hash
// (its SHA-256, lowercase hex) of session id, durably before it returns;
// Blob reads it back, an unknown one yielding an error matching
// fs.ErrNotExist.
type BlobBackend interface {
	PutBlob(id, hash string, data []byte) error
	Blob(id, hash string) ([]byte, error)
}

// WatchBackend is an optional capability of a Backend whose logs can be
// followed as they grow, from any process: Watch hands visit every record
// of log id whose seq is from or more, in order, then each one appended
// after, until ctx is done (it returns nil then) or visit fails (its
// error is returned). [Store.Watch] polls a Backend without it.
type WatchBackend interface {
	Watch(ctx context.Context, id string, from int64, visit func(eventlog.Record) error) error
}

// Optional capabilities a Log may have: a [Session] uses them when present.
type (
	// pather is a Log kept in a file (Session.Path).
	pather interface{ Path() string }
	// repairer is a Log that can cut a torn tail on Open (Recovery.Torn).
	repairer interface{ Repaired() eventlog.Repair }
)

// JSONL is the Backend of a directory of JSONL files, <Dir>/<id>.jsonl
// (directory 0700, files 0600), each written with package eventlog: its
// hold is an flock(2) the kernel drops with the process, and Open cuts a
// torn tail. Its Logs are *eventlog.Log.
//
// Every method first checks Dir with package ownership: a folder another
// user could write (owned by someone other than this user or root, or
// writable by group or others) is refused with an *ownership.Error, never
// repaired, since whoever can write it can swap any log in it. The logs
// themselves are checked by eventlog on the descriptor it opens.
type JSONL struct {
	// Dir holds the files. It is created on first Create (0700, as are
	// its missing parents, whatever the umask).
	Dir string
}

// dirWhat is what Dir is called in a refusal.
const dirWhat = "sessions folder"

// checkDir refuses a Dir another user could write; a missing Dir yields
// an error matching fs.ErrNotExist.
func (b JSONL) checkDir() error {
	if b.Dir == "" {
		return errors.New("the store has no directory")
	}
	return ownership.CheckDir(dirWhat, b.Dir)
}

// Path returns the file of session id.
func (b JSONL) Path(id string) string { return filepath.Join(b.Dir, id+".jsonl") }

// Create implements [Backend].
func (b JSONL) Create(h eventlog.Header) (Log, error) {
	if b.Dir == "" {
		return nil, errors.New("the store has no directory")
	}
	if !ValidID(h.ID) {
		return nil, fmt.Errorf("%q is not a valid session id", h.ID)
	}
	if err := ownership.MkdirAll(b.Dir); err != nil {
		return nil, err
	}
	if err := b.checkDir(); err != nil {
		return nil, err
	}
	l, err := eventlog.Create(b.Path(h.ID), h)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Open implements [Backend].
func (b JSONL) Open(id string, visit func(eventlog.Record) error) (Log, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%q is not a valid session id", id)
	}
	if err := b.checkDir(); err != nil {
		return nil, err
	}
	l, err := eventlog.Open(b.Path(id), visit)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Read implements [Backend].
func (b JSONL) Read(id string, from int64, visit func(eventlog.Record) error) (eventlog.Header, error) {
	if !ValidID(id) {
		return eventlog.Header{}, fmt.Errorf("%q is not a valid session id", id)
	}
	if err := b.checkDir(); err != nil {
		return eventlog.Header{}, err
	}
	if visit == nil {
		return eventlog.ReadHeader(b.Path(id))
	}
	h, _, err := eventlog.Read(b.Path(id), func(r eventlog.Record) error {
		if r.Seq < from {
			return nil
		}
		return visit(r)
	})
	return h, err
}

// IDs implements [Backend]: the regular files named <id>.jsonl. A missing
// directory holds no session.
func (b JSONL) IDs() ([]string, error) {
	if err := b.checkDir(); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(b.Dir)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if ok && ValidID(id) && e.Type().IsRegular() {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
