package session

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
)

// Store is the sessions of a [Backend]: by default a directory of sessions,
// one file <Dir>/<id>.jsonl each (see [JSONL]).
type Store struct {
	// Dir is <state-dir>/sessions. It is created (0700) on first Create.
	// It is used only when Backend is nil.
	Dir string
	// Backend keeps the logs; nil means JSONL{Dir: Dir}.
	Backend Backend
	// Now is the clock that stamps events; nil means time.Now.
	Now func() time.Time
}

// CreateOptions are the parameters of a new session.
type CreateOptions struct {
	// ID is the session id; empty means a generated one (see NewID).
	ID string
	// Cwd is the session's working directory, an absolute path. Required.
	Cwd string
	// Parent is the id of the session this one is started from, if any.
	Parent string
}

// Model names a model a session's log says it used: a "model"
// config/option's provider and name. Provider is empty for a switch logged
// before options named providers.
type Model struct{ Provider, Name string }

// Summary describes a session for a listing.
type Summary struct {
	ID     string
	Cwd    string
	Parent string
	// ForkSeq is where a fork of Parent branches off (Store.Fork); 0 for
	// every other session.
	ForkSeq int64
	// CreatedAt is from the header; UpdatedAt is the time of the last
	// event, or CreatedAt if there is none.
	CreatedAt, UpdatedAt time.Time
	// FirstPrompt is the text of the first user message on one line, cut to
	// about 100 characters.
	FirstPrompt string
	// Turns counts the turns started.
	Turns int
	// Sandbox is the log's last sandbox/policy: the sandbox its commands
	// ran under last; the zero value when it holds none.
	Sandbox event.SandboxPolicy
	// Usage sums the usage of the ended turns, by the model the log says
	// was current when each ended: its last "model" config/option then.
	// The zero Model: the log named none yet (a log written before the
	// host recorded a session's model at its start).
	Usage map[Model]event.Usage
	// Err is set when the file could not be read; the other fields may
	// then be partial.
	Err error
}

func (st *Store) now() time.Time {
	if st.Now != nil {
		return st.Now()
	}
	return time.Now()
}

// path returns the file of session id in a store of files.
func (st *Store) path(id string) string { return JSONL{Dir: st.Dir}.Path(id) }

// backend returns where the logs are kept.
func (st *Store) backend() Backend {
	if st.Backend != nil {
		return st.Backend
	}
	return JSONL{Dir: st.Dir}
}

// indexBackend returns the backend's index, nil if it keeps none.
func (st *Store) indexBackend() IndexBackend {
	ib, _ := st.backend().(IndexBackend)
	return ib
}

// where names the log of session id in a CorruptError: its file, for a
// backend of files.
func (st *Store) where(id string) string {
	if b, ok := st.backend().(JSONL); ok {
		return b.Path(id)
	}
	return "session " + id
}

// Create creates a session and returns it open.
func (st *Store) Create(opts CreateOptions) (*Session, error) { return st.create(opts, 0) }

// create creates a session, a fork of opts.Parent from forkSeq on when
// forkSeq > 0 (see Fork), and returns it open.
func (st *Store) create(opts CreateOptions, forkSeq int64) (*Session, error) {
	if st.Backend == nil && st.Dir == "" {
		return nil, errors.New("create session: the store has no directory")
	}
	if !filepath.IsAbs(opts.Cwd) {
		return nil, fmt.Errorf("create session: cwd %q is not an absolute path", opts.Cwd)
	}
	if opts.Parent != "" && !ValidID(opts.Parent) {
		return nil, fmt.Errorf("create session: parent %q is not a valid session id", opts.Parent)
	}
	if opts.ID != "" && !ValidID(opts.ID) {
		return nil, fmt.Errorf("create session: %q is not a valid session id (want [A-Za-z0-9][A-Za-z0-9._-]{0,127})", opts.ID)
	}
	for attempt := 0; ; attempt++ {
		now := st.now().UTC()
		id := opts.ID
		if id == "" {
			id = NewID(now)
		}
		h := eventlog.Header{ID: id, CreatedAt: now, Cwd: filepath.Clean(opts.Cwd), Parent: opts.Parent, ForkSeq: forkSeq}
		log, err := st.backend().Create(h)
		if errors.Is(err, fs.ErrExist) && opts.ID == "" && attempt < 3 {
			continue // a generated id collided: draw another
		}
		if err != nil {
			return nil, fmt.Errorf("create session %s: %w", id, err)
		}
		s := &Session{log: log, header: log.Header(), now: st.now, lastUserSeq: -1, usageAt: -1, blobs: st.blobDir(id), blobBackend: st.blobBackend(), index: st.indexBackend()}
		s.mu.Lock()
		s.putIndexLocked()
		s.mu.Unlock()
		return s, nil
	}
}

// Open opens the session id, replays its log and recovers it (see the
// package doc). An unknown id yields an error wrapping [ErrNotFound]; a
// session open elsewhere, one matching eventlog.ErrLocked.
func (st *Store) Open(id string) (*Session, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("open session %q: not a valid session id", id)
	}
	path := st.where(id)
	s := &Session{now: st.now, lastUserSeq: -1, usageAt: -1, blobs: st.blobDir(id), blobBackend: st.blobBackend(), index: st.indexBackend()}
	log, err := st.backend().Open(id, func(r eventlog.Record) error { return s.replay(path, r) })
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("open session %s: %w", id, ErrNotFound)
	case errors.Is(err, eventlog.ErrLocked):
		return nil, err // one line that says it all
	case err != nil:
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	s.log, s.header = log, log.Header()
	if s.header.ID != id {
		log.Close()
		return nil, fmt.Errorf("open session %s: %w", id, &eventlog.CorruptError{
			Path: path, Line: 1, Err: fmt.Errorf("header names session %q", s.header.ID)})
	}
	if r, ok := log.(repairer); ok {
		s.recovery.Torn = r.Repaired()
	}
	if err := s.closeInterrupted(); err != nil {
		log.Close()
		return nil, fmt.Errorf("open session %s: close interrupted turn: %w", id, err)
	}
	if s.recovery.InterruptedTurn == 0 { // else its turn/end did
		s.mu.Lock()
		s.putIndexLocked()
		s.mu.Unlock()
	}
	return s, nil
}

// replay applies one record of the log being opened, refusing what Append
// would have refused.
func (s *Session) replay(path string, r eventlog.Record) error {
	ev := event.Event{Seq: r.Seq, Time: r.Time, Type: event.Type(r.Type), Data: r.Data}
	var p event.Payload
	var err error
	if event.IsKnown(ev.Type) {
		p, err = decodePayload(ev.Type, ev.Data)
	} else {
		if err = event.CheckForeign(ev.Type, ev.Data); err != nil {
			err = invalid(ev.Type, "%v", err)
		}
	}
	if err == nil {
		err = s.st.check(ev.Type, p)
	}
	if err != nil {
		return &eventlog.CorruptError{Path: path, Line: int(r.Seq) + 2, Err: err}
	}
	s.project(ev, p)
	return nil
}

// closeInterrupted closes a turn the log left open: error results for the
// calls without one, the open step, the turn; then syncs.
func (s *Session) closeInterrupted() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	turn := s.st.turn
	if turn == 0 {
		return nil
	}
	at := s.events[len(s.events)-1].Time // the turn/start at least
	add := func(p event.Payload) error {
		data, err := event.Encode(p)
		if err == nil {
			_, err = s.appendLocked(p.EventType(), p, data, at)
		}
		return err
	}
	result := func(c pendingCall) error {
		s.recovery.SyntheticResults++
		return add(event.ToolResult{Turn: turn, Step: c.step, CallID: c.id, Content: interruptedResult, IsError: true})
	}
	calls := slices.Clone(s.st.calls)
	// Calls of the open step are answered inside it, the others after it.
	if step := s.st.step; step != 0 {
		for _, c := range calls {
			if c.step == step {
				if err := result(c); err != nil {
					return err
				}
			}
		}
		if err := add(event.StepEnd{Turn: turn, Step: step}); err != nil {
			return err
		}
		calls = slices.DeleteFunc(calls, func(c pendingCall) bool { return c.step == step })
	}
	for _, c := range calls {
		if err := result(c); err != nil {
			return err
		}
	}
	if err := add(event.TurnEnd{Turn: turn, Reason: event.ReasonInterrupted}); err != nil {
		return err // appendLocked synced it
	}
	s.recovery.InterruptedTurn = turn
	return nil
}

// List summarises every session in the store, most recently updated first.
// It takes no lock and writes nothing: sessions open in other processes are
// listed as they stand, a torn tail ignored. A session whose file cannot be
// read is listed with Summary.Err set. A missing directory lists nothing.
// On an [IndexBackend] a session whose indexed summary is current (its
// Next is the log's length) is listed from it; the others are read, and
// every log is read when the index cannot be.
func (st *Store) List() ([]Summary, error) {
	var ids []string
	var list []Summary
	indexed := false
	if ib, ok := st.backend().(IndexBackend); ok {
		if lens, sums, err := ib.Index(); err == nil { // else read every log
			indexed = true
			for id, n := range lens {
				if x, ok := sums[id]; ok && x.Next == n && x.plausible() {
					list = append(list, x.Summary(id))
				} else {
					ids = append(ids, id)
				}
			}
		}
	}
	if !indexed {
		var err error
		if ids, err = st.backend().IDs(); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
	}
	// Each summary reads a whole log: a few at once, for a store across a
	// network whose reads wait on round trips.
	read := make([]Summary, len(ids))
	sem := make(chan struct{}, listReaders)
	var wg sync.WaitGroup
	for i, id := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			read[i] = st.summary(id)
		})
	}
	wg.Wait()
	list = append(list, read...)
	slices.SortFunc(list, func(a, b Summary) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return list, nil
}

// listReaders is how many logs List reads at once.
const listReaders = 16

// summary reads one session's log for List.
func (st *Store) summary(id string) Summary {
	where := st.where(id)
	var f fold
	h, err := st.backend().Read(id, 0, func(r eventlog.Record) error { return f.addRecord(where, r) })
	if err != nil {
		return Summary{ID: id, Err: fmt.Errorf("read session %s: %w", id, err)}
	}
	sum := f.summary(h)
	sum.ID = id
	return sum
}

// NewID returns a fresh session id: the UTC time to the second, then 8 random
// hex digits, e.g. "20261129T194710-3f9a2c1b". Ids sort by creation time.
func NewID(now time.Time) string {
	var b [4]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go ≥ 1.24)
	return now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// ValidID reports whether id can name a session: an ASCII letter or digit,
// then up to 127 letters, digits, '.', '_' or '-'.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// Lineage returns session id and its ancestors, nearest first: [id,
// parent, …, root]. It reads only the headers of the chain. A fork is a
// root: the session it was forked from is not its ancestor here.
func (st *Store) Lineage(id string) ([]string, error) {
	var chain []string
	for seen := map[string]bool{}; ; {
		if !ValidID(id) {
			return nil, fmt.Errorf("session lineage: %q is not a valid session id", id)
		}
		if seen[id] {
			return nil, fmt.Errorf("session lineage: session %s is its own ancestor", id)
		}
		seen[id] = true
		chain = append(chain, id)
		h, err := st.backend().Read(id, 0, nil)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("session lineage: %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("session lineage: %w", err)
		}
		if h.Parent == "" || h.ForkSeq > 0 {
			return chain, nil // a fork starts a lineage of its own
		}
		id = h.Parent
	}
}

// Cwd returns the working directory of session id, from its header.
func (st *Store) Cwd(id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("session cwd: %q is not a valid session id", id)
	}
	h, err := st.backend().Read(id, 0, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("session cwd: %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("session cwd: %w", err)
	}
	return h.Cwd, nil
}

// Depth returns how many ancestors session id has: 0 for a root session.
func (st *Store) Depth(id string) (int, error) {
	chain, err := st.Lineage(id)
	return len(chain) - 1, err
}
