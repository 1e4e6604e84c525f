// Package storetest is the conformance suite of the session store contract,
// [session.Backend], in the style of testing/slogtest and testing/fstest:
// any store that keeps sessions — the JSONL directory today, a shared store
// for teams later — must pass [Run] before a [session.Store] runs on it.
//
// Run checks, against a fresh, empty backend for each check:
//
//   - round trip: Create, Append, Close, then Open and Read give back the
//     header and every record byte for byte, in seq order; Read from a seq
//     starts there; a nil visit reads only the header;
//   - contiguous seq: Next counts the records; an Append whose seq is not
//     Next is refused and writes nothing; a closed log refuses Append;
//   - identity: Create refuses a taken id (fs.ErrExist) and leaves its log
//     alone; Open and Read of an unknown id fail with fs.ErrNotExist;
//   - one writer: while a log is held, Open fails at once with an error
//     matching eventlog.ErrLocked, one line long; Read still works and sees
//     what the writer appended; after Close, Open succeeds; of many writers
//     racing to Open, exactly one wins;
//   - list: IDs names every session created, and Store.List shows each with
//     its metadata (cwd, parent, creation time, turns, first prompt);
//   - followers never drop: through a session.Store on the backend, a slow
//     follower and a fast one see every event in order, without gap or
//     repeat, after N appends, and end when the session is closed;
//   - replay equals live: a session reopened from the backend has exactly
//     the events the live session had (seq, time, type, data);
//   - index, for a backend that is a session.IndexBackend: a session's
//     entry is current and equals the summary read from its log after
//     turns, after Close, after a reopen that closed a torn turn, and for
//     a fork and an import; List reads no log whose entry is current and
//     gives what List reading every log gives; a stale entry (an older
//     one put back, records appended past it) or none is noticed and
//     that log read.
//
// Checks that only some backends can make sit behind [Options]: a backend
// of files passes Options.TearTail, and Run then checks that Open cuts a torn
// tail and that Read ignores it.
//
// The JSONL store runs the suite in package session's tests:
//
//	storetest.Run(t, func(t *testing.T) session.Backend {
//		return session.JSONL{Dir: t.TempDir()}
//	}, storetest.Options{TearTail: ...})
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/session"
)

// Options are what Run may do to a backend beyond the contract.
type Options struct {
	// TearTail, if set, damages the log id of backend b (closed, with at
	// least one record) the way a crash in the middle of an Append would:
	// part of one more record is left after the last whole one. Run then
	// checks that Read ignores the torn record, that Open cuts it and
	// reports it, and that the log goes on at the seq it had.
	TearTail func(t *testing.T, b session.Backend, id string)
}

// Run runs every check of the suite, each as a subtest with a backend of its
// own from newBackend.
func Run(t *testing.T, newBackend func(t *testing.T) session.Backend, opts Options) {
	t.Helper()
	checks := []struct {
		name string
		run  func(t *testing.T, b session.Backend)
	}{
		{"RoundTrip", roundTrip},
		{"ContiguousSeq", contiguousSeq},
		{"Identity", identity},
		{"OneWriter", oneWriter},
		{"RacingWriters", racingWriters},
		{"List", list},
		{"FollowersNeverDrop", followers},
		{"ReplayEqualsLive", replayEqualsLive},
		{"Index", index},
		{"Blobs", blobs},
	}
	if opts.TearTail != nil {
		checks = append(checks, struct {
			name string
			run  func(t *testing.T, b session.Backend)
		}{"TornTail", func(t *testing.T, b session.Backend) { tornTail(t, b, opts.TearTail) }})
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newBackend(t))
		})
	}
}

var t0 = time.Date(2026, 11, 29, 19, 47, 10, 123456789, time.UTC)

func header(id string) eventlog.Header {
	return eventlog.Header{ID: id, CreatedAt: t0, Cwd: "/src/" + id, Parent: "root", ForkSeq: 7}
}

// record returns the nth test record: varied types and payloads.
func record(n int64) eventlog.Record {
	data := fmt.Sprintf(`{"n":%d,"text":"line \"%d\" \u00e9\\n"}`, n, n)
	switch n % 3 {
	case 1:
		data = fmt.Sprintf(`[%d,true,null]`, n)
	case 2:
		data = `"` + strings.Repeat("x", int(n)) + `"`
	}
	return eventlog.Record{Seq: n, Time: t0.Add(time.Duration(n) * time.Millisecond), Type: fmt.Sprintf("test/kind%d", n%4), Data: json.RawMessage(data)}
}

func mustCreate(t *testing.T, b session.Backend, id string, n int64) session.Log {
	t.Helper()
	l, err := b.Create(header(id))
	if err != nil {
		t.Fatalf("Create(%s): %v", id, err)
	}
	for i := range n {
		if err := l.Append(record(i)); err != nil {
			t.Fatalf("Append(seq %d) to %s: %v", i, id, err)
		}
	}
	return l
}

func mustClose(t *testing.T, l session.Log) {
	t.Helper()
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func sameRecord(a, b eventlog.Record) bool {
	return a.Seq == b.Seq && a.Time.Equal(b.Time) && a.Type == b.Type && bytes.Equal(a.Data, b.Data)
}

// wantRecords checks that got are records from..to-1.
func wantRecords(t *testing.T, what string, got []eventlog.Record, from, to int64) {
	t.Helper()
	if int64(len(got)) != to-from {
		t.Fatalf("%s: %d records, want %d (seq %d to %d)", what, len(got), to-from, from, to-1)
	}
	for i, r := range got {
		if want := record(from + int64(i)); !sameRecord(r, want) {
			t.Fatalf("%s: record %d is %+v, want %+v", what, i, r, want)
		}
	}
}

func collect(into *[]eventlog.Record) func(eventlog.Record) error {
	return func(r eventlog.Record) error {
		r.Data = bytes.Clone(r.Data)
		*into = append(*into, r)
		return nil
	}
}

func openAll(t *testing.T, b session.Backend, id string) (session.Log, []eventlog.Record) {
	t.Helper()
	var got []eventlog.Record
	l, err := b.Open(id, collect(&got))
	if err != nil {
		t.Fatalf("Open(%s): %v", id, err)
	}
	return l, got
}

func sameHeader(t *testing.T, what string, got, want eventlog.Header) {
	t.Helper()
	if got.ID != want.ID || got.Cwd != want.Cwd || got.Parent != want.Parent || got.ForkSeq != want.ForkSeq || !got.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("%s: header %+v, want %+v", what, got, want)
	}
}

func roundTrip(t *testing.T, b session.Backend) {
	const n = 30
	l := mustCreate(t, b, "rt", n)
	sameHeader(t, "Header after Create", l.Header(), header("rt"))
	if err := l.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	mustClose(t, l)
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}

	l, got := openAll(t, b, "rt")
	defer l.Close()
	wantRecords(t, "Open", got, 0, n)
	sameHeader(t, "Header after Open", l.Header(), header("rt"))
	if l.Next() != n {
		t.Errorf("Next after Open = %d, want %d", l.Next(), n)
	}

	for _, from := range []int64{0, 7, n - 1, n, n + 5} {
		var read []eventlog.Record
		h, err := b.Read("rt", from, collect(&read))
		if err != nil {
			t.Fatalf("Read(from %d): %v", from, err)
		}
		sameHeader(t, fmt.Sprintf("Read(from %d)", from), h, header("rt"))
		wantRecords(t, fmt.Sprintf("Read(from %d)", from), read, min(from, n), n)
	}
	h, err := b.Read("rt", 0, nil)
	if err != nil {
		t.Fatalf("Read header only: %v", err)
	}
	sameHeader(t, "Read header only", h, header("rt"))

	// A session with no record round trips too.
	mustClose(t, mustCreate(t, b, "empty", 0))
	l2, got := openAll(t, b, "empty")
	defer l2.Close()
	if len(got) != 0 || l2.Next() != 0 {
		t.Errorf("empty session: %d records, Next %d; want none", len(got), l2.Next())
	}
}

func contiguousSeq(t *testing.T, b session.Backend) {
	l := mustCreate(t, b, "seq", 3)
	for _, seq := range []int64{-1, 0, 2, 4, 1 << 40} {
		r := record(3)
		r.Seq = seq
		if err := l.Append(r); err == nil {
			t.Errorf("Append(seq %d) with Next %d succeeded, want refused", seq, 3)
		}
		if l.Next() != 3 {
			t.Fatalf("Next after a refused Append(seq %d) = %d, want 3", seq, l.Next())
		}
	}
	if err := l.Append(record(3)); err != nil {
		t.Fatalf("Append(seq 3) after refusals: %v", err)
	}
	if l.Next() != 4 {
		t.Errorf("Next = %d, want 4", l.Next())
	}
	mustClose(t, l)
	if err := l.Append(record(4)); err == nil {
		t.Errorf("Append to a closed log succeeded")
	}
	l, got := openAll(t, b, "seq")
	defer l.Close()
	wantRecords(t, "Open after refused appends", got, 0, 4)
}

func identity(t *testing.T, b session.Backend) {
	mustClose(t, mustCreate(t, b, "taken", 2))
	if l, err := b.Create(header("taken")); !errors.Is(err, fs.ErrExist) {
		if err == nil {
			l.Close()
		}
		t.Errorf("Create of a taken id: %v, want an error matching fs.ErrExist", err)
	}
	l, got := openAll(t, b, "taken")
	mustClose(t, l)
	wantRecords(t, "Open after a refused Create", got, 0, 2)

	if l, err := b.Open("missing", collect(new([]eventlog.Record))); !errors.Is(err, fs.ErrNotExist) {
		if err == nil {
			l.Close()
		}
		t.Errorf("Open of an unknown id: %v, want an error matching fs.ErrNotExist", err)
	}
	if _, err := b.Read("missing", 0, collect(new([]eventlog.Record))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of an unknown id: %v, want an error matching fs.ErrNotExist", err)
	}
	if _, err := b.Read("missing", 0, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read header of an unknown id: %v, want an error matching fs.ErrNotExist", err)
	}
	// A visit error fails Open and comes back as is.
	stop := errors.New("visit refused")
	if l, err := b.Open("taken", func(eventlog.Record) error { return stop }); !errors.Is(err, stop) {
		if err == nil {
			l.Close()
		}
		t.Errorf("Open with a failing visit: %v, want the visit's error", err)
	}
	// ... and leaves the log free.
	l, _ = openAll(t, b, "taken")
	mustClose(t, l)
}

func oneWriter(t *testing.T, b session.Backend) {
	first := mustCreate(t, b, "lock", 2)
	for _, what := range []string{"Open while Create holds", "Open again"} {
		l, err := b.Open("lock", collect(new([]eventlog.Record)))
		if err == nil {
			l.Close()
			t.Fatalf("%s: a second writer opened a held log", what)
		}
		if !errors.Is(err, eventlog.ErrLocked) {
			t.Fatalf("%s: %v, want an error matching eventlog.ErrLocked", what, err)
		}
		if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q is not one line", what, msg)
		}
	}
	// A reader is never refused, and sees what the writer appended.
	if err := first.Append(record(2)); err != nil {
		t.Fatal(err)
	}
	var read []eventlog.Record
	if _, err := b.Read("lock", 0, collect(&read)); err != nil {
		t.Fatalf("Read while held: %v", err)
	}
	wantRecords(t, "Read while held", read, 0, 3)
	mustClose(t, first)

	second, got := openAll(t, b, "lock")
	wantRecords(t, "Open after release", got, 0, 3)
	if l, err := b.Open("lock", collect(new([]eventlog.Record))); !errors.Is(err, eventlog.ErrLocked) {
		if err == nil {
			l.Close()
		}
		t.Errorf("Open while Open holds: %v, want eventlog.ErrLocked", err)
	}
	if err := second.Append(record(3)); err != nil {
		t.Fatalf("Append by the second writer: %v", err)
	}
	mustClose(t, second)
	l, got := openAll(t, b, "lock")
	defer l.Close()
	wantRecords(t, "Open after the second writer", got, 0, 4)
}

func racingWriters(t *testing.T, b session.Backend) {
	mustClose(t, mustCreate(t, b, "race", 1))
	const writers = 8
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		won   []session.Log
		other []error
	)
	start := make(chan struct{})
	for range writers {
		wg.Go(func() {
			<-start
			l, err := b.Open("race", func(eventlog.Record) error { return nil })
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, l)
			case !errors.Is(err, eventlog.ErrLocked):
				other = append(other, err)
			}
		})
	}
	close(start)
	wg.Wait()
	for _, l := range won {
		defer l.Close()
	}
	if len(won) != 1 || len(other) != 0 {
		t.Fatalf("%d writers raced to Open: %d won, other errors %v; want exactly one winner, the rest ErrLocked", writers, len(won), other)
	}
}

func list(t *testing.T, b session.Backend) {
	if ids, err := b.IDs(); err != nil || len(ids) != 0 {
		t.Fatalf("IDs of an empty store = %q, %v; want none", ids, err)
	}
	c := &clock{t: t0}
	st := &session.Store{Backend: b, Now: c.Now}
	root, err := st.Create(session.CreateOptions{ID: "root", Cwd: "/src/a"})
	if err != nil {
		t.Fatal(err)
	}
	turn(t, root, 1, "hello\nworld")
	child, err := st.Create(session.CreateOptions{ID: "child", Cwd: "/src/b", Parent: "root"})
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, mustCreate(t, b, "bare", 0))
	defer root.Close()
	defer child.Close()

	ids, err := b.IDs()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	if want := []string{"bare", "child", "root"}; !slices.Equal(ids, want) {
		t.Errorf("IDs = %q, want %q", ids, want)
	}
	sums, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]session.Summary{}
	for _, s := range sums {
		if s.Err != nil {
			t.Errorf("List: %s: %v", s.ID, s.Err)
		}
		byID[s.ID] = s
	}
	if len(byID) != 3 {
		t.Fatalf("List has %d sessions, want 3: %+v", len(byID), sums)
	}
	r, ch := byID["root"], byID["child"]
	if r.Cwd != "/src/a" || r.Parent != "" || r.Turns != 1 || r.FirstPrompt != "hello world" || !r.CreatedAt.Equal(root.CreatedAt()) {
		t.Errorf("List: root is %+v", r)
	}
	if ch.Cwd != "/src/b" || ch.Parent != "root" || ch.Turns != 0 || !ch.CreatedAt.Equal(child.CreatedAt()) {
		t.Errorf("List: child is %+v", ch)
	}
	if chain, err := st.Lineage("child"); err != nil || !slices.Equal(chain, []string{"child", "root"}) {
		t.Errorf("Lineage(child) = %q, %v; want [child root]", chain, err)
	}
}

// clock is a deterministic clock: every reading is one millisecond on.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

// turn appends one whole turn n to s: start, user message, end.
func turn(t *testing.T, s *session.Session, n int, prompt string) {
	t.Helper()
	for _, p := range []event.Payload{
		event.TurnStart{Turn: n},
		event.UserMessage{Content: event.Text(prompt)},
		event.TurnEnd{Turn: n, Reason: event.ReasonCompleted},
	} {
		if _, err := s.Append(p); err != nil {
			t.Fatalf("append %s: %v", p.EventType(), err)
		}
	}
}

func followers(t *testing.T, b session.Backend) {
	st := &session.Store{Backend: b}
	s, err := st.Create(session.CreateOptions{ID: "follow", Cwd: "/src"})
	if err != nil {
		t.Fatal(err)
	}
	const turns = 100
	const total = turns * 3
	seqs := make([][]int64, 3)
	var wg sync.WaitGroup
	for i, pause := range []time.Duration{0, time.Millisecond, 0} {
		from := int64(0)
		if i == 2 {
			from = 50
		}
		wg.Go(func() {
			for ev := range s.Follow(context.Background(), from) {
				seqs[i] = append(seqs[i], ev.Seq)
				if pause > 0 && len(seqs[i])%10 == 0 {
					time.Sleep(pause) // slow: the writer gets far ahead
				}
			}
		})
	}
	for n := 1; n <= turns; n++ {
		turn(t, s, n, "p")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait() // every follower ends once it has seen the last event
	for i, got := range seqs {
		from := int64(0)
		if i == 2 {
			from = 50
		}
		if int64(len(got)) != total-from {
			t.Errorf("follower %d: %d events, want %d", i, len(got), total-from)
		}
		for k, seq := range got {
			if seq != from+int64(k) {
				t.Errorf("follower %d: event %d has seq %d, want %d", i, k, seq, from+int64(k))
				break
			}
		}
	}
}

func replayEqualsLive(t *testing.T, b session.Backend) {
	c := &clock{t: t0}
	st := &session.Store{Backend: b, Now: c.Now}
	s, err := st.Create(session.CreateOptions{ID: "replay", Cwd: "/src"})
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 5; n++ {
		turn(t, s, n, fmt.Sprintf("prompt %d", n))
	}
	if _, err := s.AppendRaw("test/foreign", json.RawMessage(`{"a":[1,2,{"b":"c"}]}`)); err == nil {
		t.Fatal("a foreign event outside a turn was accepted")
	}
	if _, err := s.Append(event.TurnStart{Turn: 6}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendRaw("test/foreign", json.RawMessage(`{"a":[1,2,{"b":"c"}]}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(event.TurnEnd{Turn: 6, Reason: event.ReasonCancelled}); err != nil {
		t.Fatal(err)
	}
	live := slices.Clone(s.Events())
	liveMsgs := len(s.Messages())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := st.Open("replay")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Recovery().IsZero() {
		t.Errorf("a cleanly closed session was recovered: %s", r.Recovery())
	}
	replayed := r.Events()
	if len(replayed) != len(live) {
		t.Fatalf("replay has %d events, live had %d", len(replayed), len(live))
	}
	for i := range live {
		a, b := live[i], replayed[i]
		if a.Seq != b.Seq || !a.Time.Equal(b.Time) || a.Type != b.Type || !bytes.Equal(a.Data, b.Data) {
			t.Errorf("event %d: replayed %+v, live %+v", i, b, a)
		}
	}
	if len(r.Messages()) != liveMsgs || r.LastTurn() != 6 {
		t.Errorf("replay: %d messages, last turn %d; live had %d messages, last turn 6", len(r.Messages()), r.LastTurn(), liveMsgs)
	}
}

func tornTail(t *testing.T, b session.Backend, tear func(*testing.T, session.Backend, string)) {
	mustClose(t, mustCreate(t, b, "torn", 3))
	tear(t, b, "torn")

	var read []eventlog.Record
	if _, err := b.Read("torn", 0, collect(&read)); err != nil {
		t.Fatalf("Read of a torn log: %v", err)
	}
	wantRecords(t, "Read of a torn log", read, 0, 3)

	l, got := openAll(t, b, "torn")
	wantRecords(t, "Open of a torn log", got, 0, 3)
	if r, ok := l.(interface{ Repaired() eventlog.Repair }); ok && r.Repaired().IsZero() {
		t.Errorf("Open cut a torn tail but reports no repair")
	}
	if l.Next() != 3 {
		t.Fatalf("Next after cutting the tail = %d, want 3", l.Next())
	}
	if err := l.Append(record(3)); err != nil {
		t.Fatalf("Append after cutting the tail: %v", err)
	}
	mustClose(t, l)
	l, got = openAll(t, b, "torn")
	defer l.Close()
	wantRecords(t, "Open after the repair", got, 0, 4)
	if r, ok := l.(interface{ Repaired() eventlog.Repair }); ok && !r.Repaired().IsZero() {
		t.Errorf("the second Open repaired again: %s", r.Repaired())
	}
}

// reads is a backend that records which logs are read, keeping the index
// of the one it wraps.
type reads struct {
	session.Backend
	ib  session.IndexBackend
	mu  sync.Mutex
	ids []string
}

func (r *reads) Read(id string, from int64, visit func(eventlog.Record) error) (eventlog.Header, error) {
	r.mu.Lock()
	r.ids = append(r.ids, id)
	r.mu.Unlock()
	return r.Backend.Read(id, from, visit)
}

func (r *reads) PutSummary(id string, s session.IndexedSummary) error { return r.ib.PutSummary(id, s) }

func (r *reads) Index() (map[string]int64, map[string]session.IndexedSummary, error) {
	return r.ib.Index()
}

// list lists the store through the index and returns the summaries and
// the logs read, sorted.
func (r *reads) list(t *testing.T) ([]session.Summary, []string) {
	t.Helper()
	r.mu.Lock()
	r.ids = nil
	r.mu.Unlock()
	sums, err := (&session.Store{Backend: r}).List()
	if err != nil {
		t.Fatalf("List through the index: %v", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return sums, slices.Sorted(slices.Values(r.ids))
}

// sameSummary says how got differs from want, field by field; "" if not.
func sameSummary(got, want session.Summary) string {
	var d []string
	diff := func(field string, g, w any) { d = append(d, fmt.Sprintf("%s %v, want %v", field, g, w)) }
	if got.ID != want.ID {
		diff("ID", got.ID, want.ID)
	}
	if got.Cwd != want.Cwd {
		diff("Cwd", got.Cwd, want.Cwd)
	}
	if got.Parent != want.Parent {
		diff("Parent", got.Parent, want.Parent)
	}
	if got.ForkSeq != want.ForkSeq {
		diff("ForkSeq", got.ForkSeq, want.ForkSeq)
	}
	if !got.CreatedAt.Equal(want.CreatedAt) {
		diff("CreatedAt", got.CreatedAt, want.CreatedAt)
	}
	if !got.UpdatedAt.Equal(want.UpdatedAt) {
		diff("UpdatedAt", got.UpdatedAt, want.UpdatedAt)
	}
	if got.FirstPrompt != want.FirstPrompt {
		diff("FirstPrompt", got.FirstPrompt, want.FirstPrompt)
	}
	if got.Turns != want.Turns {
		diff("Turns", got.Turns, want.Turns)
	}
	if !reflect.DeepEqual(got.Sandbox, want.Sandbox) {
		diff("Sandbox", got.Sandbox, want.Sandbox)
	}
	if !reflect.DeepEqual(got.Usage, want.Usage) {
		diff("Usage", got.Usage, want.Usage)
	}
	if got.Err != nil || want.Err != nil {
		diff("Err", got.Err, want.Err)
	}
	return strings.Join(d, "; ")
}

func byID(sums []session.Summary) map[string]session.Summary {
	m := map[string]session.Summary{}
	for _, s := range sums {
		m[s.ID] = s
	}
	return m
}

func index(t *testing.T, b session.Backend) {
	ib, ok := b.(session.IndexBackend)
	if !ok {
		t.Skip("the backend keeps no index")
	}
	c := &clock{t: t0}
	st := &session.Store{Backend: b, Now: c.Now}
	scan := &session.Store{Backend: struct{ session.Backend }{b}} // hides the index: List reads every log
	// current checks that the entries of ids are current and equal the
	// summaries read from the logs, and returns them.
	current := func(what string, ids ...string) map[string]session.IndexedSummary {
		t.Helper()
		lens, sums, err := ib.Index()
		if err != nil {
			t.Fatalf("%s: Index: %v", what, err)
		}
		read, err := scan.List()
		if err != nil {
			t.Fatalf("%s: List: %v", what, err)
		}
		want := byID(read)
		for _, id := range ids {
			x, ok := sums[id]
			switch {
			case !ok:
				t.Errorf("%s: %s has no entry", what, id)
			case x.Next != lens[id]:
				t.Errorf("%s: %s's entry is current to %d records, its log has %d", what, id, x.Next, lens[id])
			default:
				if d := sameSummary(x.Summary(id), want[id]); d != "" {
					t.Errorf("%s: %s's entry differs from its log: %s", what, id, d)
				}
			}
		}
		return sums
	}
	appendAll := func(s *session.Session, ps ...event.Payload) {
		t.Helper()
		for _, p := range ps {
			if _, err := s.Append(p); err != nil {
				t.Fatalf("append %s: %v", p.EventType(), err)
			}
		}
	}
	usage := func(in, out int) *event.Usage {
		return &event.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: 3}
	}

	// a: every field a summary shows, two models' usage.
	a, err := st.Create(session.CreateOptions{ID: "a.1", Cwd: "/src/a", Parent: "p"})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(a,
		event.ConfigOption{ID: "model", Value: "m1", Provider: "p1", By: event.ByHost},
		event.SandboxPolicy{Mode: "workspace-write", Network: "off", AddDirs: []string{"/tmp/x"}, By: event.ByHost},
		event.TurnStart{Turn: 1}, event.UserMessage{Content: event.Text("first\n  prompt " + strings.Repeat("long ", 30))},
		event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted, Usage: usage(10, 20)})
	old := current("a after a turn", "a.1")["a.1"]
	appendAll(a,
		event.ConfigOption{ID: "model", Value: "m2", Provider: "p2"},
		event.TurnStart{Turn: 2}, event.UserMessage{Content: event.Text("second")},
		event.TurnEnd{Turn: 2, Reason: event.ReasonCompleted, Usage: usage(1, 2)},
		event.TurnStart{Turn: 3}, event.TurnEnd{Turn: 3, Reason: event.ReasonCancelled, Usage: usage(5, 5)})
	x := current("a after three turns", "a.1")["a.1"]
	if x.Turns != 3 || len(x.Usage) != 2 || x.Sandbox.Mode == "" || x.FirstPrompt == "" || x.Parent != "p" {
		t.Errorf("a's entry lacks what was logged: %+v", x)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	current("a after Close", "a.1")

	// f: a fork of a (Parent and ForkSeq).
	f, err := st.Fork("a.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(f, event.TurnStart{Turn: 4}, event.UserMessage{Content: event.Text("forked")},
		event.TurnEnd{Turn: 4, Reason: event.ReasonCompleted})
	if x := current("fork", f.ID(), "a.1")[f.ID()]; x.ForkSeq == 0 || x.Parent != "a.1" {
		t.Errorf("the fork's entry: %+v, want ForkSeq > 0 and Parent a.1", x)
	}

	// torn: closed with a turn open (as a killed writer leaves it), then
	// reopened: Open closes the turn as interrupted.
	torn, err := st.Create(session.CreateOptions{ID: "torn", Cwd: "/src/t"})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(torn, event.TurnStart{Turn: 1}, event.UserMessage{Content: event.Text("go")},
		event.StepStart{Turn: 1, Step: 1}, event.ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "bash", Args: "{}"})
	if err := torn.Close(); err != nil {
		t.Fatal(err)
	}
	current("torn, closed mid-turn", "torn")
	torn, err = st.Open("torn")
	if err != nil {
		t.Fatal(err)
	}
	if torn.Recovery().InterruptedTurn != 1 {
		t.Fatalf("torn: recovery %s, want turn 1 closed", torn.Recovery())
	}
	current("torn, reopened", "torn")
	if err := torn.Close(); err != nil {
		t.Fatal(err)
	}

	// imp: a's log imported under another id.
	var exp bytes.Buffer
	if err := st.Export("a.1", &exp); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "imp.jsonl")
	if err := os.WriteFile(file, bytes.Replace(exp.Bytes(), []byte(`"id":"a.1"`), []byte(`"id":"imp"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if id, err := st.Import(file); err != nil || id != "imp" {
		t.Fatalf("Import: %s, %v", id, err)
	}
	current("imported", "imp")

	// List through the index reads no log and says what reading them says.
	r := &reads{Backend: b, ib: ib}
	check := func(what string, wantRead ...string) {
		t.Helper()
		got, read := r.list(t)
		if !slices.Equal(read, wantRead) {
			t.Errorf("%s: List read the logs %q, want %q", what, read, wantRead)
		}
		want, err := scan.List()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: List through the index has %d sessions, reading every log %d", what, len(got), len(want))
		}
		for i := range want {
			if d := sameSummary(got[i], want[i]); d != "" {
				t.Errorf("%s: List through the index, session %d: %s", what, i, d)
			}
		}
	}
	check("every entry current")

	// Stale entries: an older one put back; records appended past one
	// (a writer killed between an append and its put); none at all.
	if err := ib.PutSummary("a.1", old); err != nil {
		t.Fatal(err)
	}
	l, err := b.Open("torn", func(eventlog.Record) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(eventlog.Record{Seq: l.Next(), Time: c.Now(), Type: string(event.TypeTurnStart), Data: json.RawMessage(`{"turn":2}`)}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, l)
	mustClose(t, mustCreate(t, b, "bare", 2))
	check("stale entries", "a.1", "bare", "torn")

	// Open puts a current entry (here after closing turn 2).
	torn, err = st.Open("torn")
	if err != nil {
		t.Fatal(err)
	}
	defer torn.Close()
	check("torn reopened", "a.1", "bare")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// blobs: the images a session's events name travel with it, whatever
// keeps them (files beside the logs, or the backend: BlobBackend). A fork
// reads its parent's back; a session exported (Export and ExportBlobs)
// and imported under another id reads them back; an image missing from
// the export's folder is left out of the import, which goes on; one whose
// bytes do not hash to its name refuses the import, writing no log.
func blobs(t *testing.T, b session.Backend) {
	st := &session.Store{Backend: b}
	s, err := st.Create(session.CreateOptions{ID: "pics", Cwd: "/src/pics"})
	if err != nil {
		t.Fatal(err)
	}
	prompt, shot := []byte("prompt image bytes"), []byte("tool result image bytes")
	hp, err := s.PutBlob(prompt)
	if err != nil {
		t.Skipf("the store keeps no blobs: %v", err)
	}
	hs, err := s.PutBlob(shot)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []event.Payload{
		event.TurnStart{Turn: 1},
		event.UserMessage{Content: []event.Content{{Type: event.ContentText, Text: "look"}, {Type: event.ContentImage, MimeType: "image/png", Blob: hp}}},
		event.StepStart{Turn: 1, Step: 1},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "shot", Args: "{}"},
		event.ToolResult{Turn: 1, Step: 1, CallID: "c1", Content: "[image: image/png]", Images: []event.Content{{Type: event.ContentImage, MimeType: "image/png", Blob: hs}}},
		event.StepEnd{Turn: 1, Step: 1},
		event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted},
	} {
		if _, err := s.Append(p); err != nil {
			t.Fatalf("append %s: %v", p.EventType(), err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	has := func(what string, s *session.Session, want map[string][]byte) {
		t.Helper()
		for hash, data := range want {
			got, err := s.Blob(hash)
			if data == nil {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s: blob %.8s: %q, %v; want it missing", what, hash, got, err)
				}
				continue
			}
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s: blob %.8s: %q, %v; want %q", what, hash, got, err, data)
			}
		}
	}

	f, err := st.Fork("pics", 0)
	if err != nil {
		t.Fatal(err)
	}
	has("the fork", f, map[string][]byte{hp: prompt, hs: shot})
	f.Close()

	var log bytes.Buffer
	if err := st.Export("pics", &log); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	imported := func(id string, blobs map[string][]byte) (string, error) {
		t.Helper()
		file := filepath.Join(dir, id+".jsonl")
		if err := os.WriteFile(file, bytes.Replace(log.Bytes(), []byte(`"id":"pics"`), []byte(`"id":"`+id+`"`), 1), 0o600); err != nil {
			t.Fatal(err)
		}
		if n, missing, err := st.ExportBlobs("pics", session.BlobsBeside(file)); err != nil || n != 2 || missing != 0 {
			t.Fatalf("ExportBlobs: %d written, %d missing, %v; want 2, 0", n, missing, err)
		}
		for hash, data := range blobs {
			path := filepath.Join(session.BlobsBeside(file), hash)
			if data == nil {
				os.Remove(path)
			} else if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return st.Import(file)
	}
	id, err := imported("whole", nil)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	in, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	has("the import", in, map[string][]byte{hp: prompt, hs: shot})
	in.Close()

	if id, err = imported("partial", map[string][]byte{hs: nil}); err != nil {
		t.Fatalf("Import without one image: %v", err)
	}
	if in, err = st.Open(id); err != nil {
		t.Fatal(err)
	}
	has("the import without one image", in, map[string][]byte{hp: prompt, hs: nil})
	in.Close()

	if _, err := imported("forged", map[string][]byte{hp: []byte("other bytes")}); err == nil || !strings.Contains(err.Error(), "hash") {
		t.Errorf("Import of an image whose bytes are not its name: %v, want refused", err)
	}
	if _, err := st.Open("forged"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("the refused import left a session: %v", err)
	}
}
