package natsstore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/session/natsstore"
	"github.com/harness-dev/harness/host/session/natsstore/natstest"
)

func rec(seq int64) eventlog.Record {
	return eventlog.Record{Seq: seq, Time: time.Unix(1700000000+seq, 0).UTC(), Type: "test/event",
		Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, seq))}
}

func header(id string) eventlog.Header {
	return eventlog.Header{ID: id, CreatedAt: time.Unix(1700000000, 0).UTC(), Cwd: "/w"}
}

func appendN(t *testing.T, l interface{ Append(eventlog.Record) error }, from, n int64) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if err := l.Append(rec(i)); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
}

func readAll(t *testing.T, b *natsstore.Backend, id string) []eventlog.Record {
	t.Helper()
	var got []eventlog.Record
	if _, err := b.Read(id, 0, func(r eventlog.Record) error {
		r.Data = append(json.RawMessage(nil), r.Data...)
		got = append(got, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func wantSeqs(t *testing.T, got []eventlog.Record, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%d records, want %d", len(got), n)
	}
	for i, r := range got {
		if r.Seq != int64(i) || string(r.Data) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("record %d is seq %d %s", i, r.Seq, r.Data)
		}
	}
}

// A writer that dies without closing (its connection dropped, as a SIGKILL
// or a cut network leaves it) holds its session until the lease expires;
// the locked error names it; then another host takes the session over with
// every acknowledged record.
func TestTakeover(t *testing.T) {
	srv := natstest.Start(t, natstest.Config{})
	const ttl = time.Second
	a := connect(t, srv, natsstore.Options{LeaseTTL: ttl, Holder: "host-a pid 1"})
	b := connect(t, srv, natsstore.Options{LeaseTTL: ttl, Holder: "host-b pid 2"})
	la, err := a.Create(header("s1"))
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, la, 0, 5)

	_, err = b.Open("s1", func(eventlog.Record) error { return nil })
	var locked *natsstore.LockedError
	if !errors.As(err, &locked) || !errors.Is(err, eventlog.ErrLocked) {
		t.Fatalf("open of a held session: %v, want a LockedError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "host-a pid 1") || strings.Contains(msg, "\n") {
		t.Fatalf("locked error %q: want one line naming the holder", msg)
	}

	_ = a.Close() // the connection goes; the log is never closed
	var lb interface {
		Append(eventlog.Record) error
		Next() int64
		Close() error
	}
	deadline := time.Now().Add(ttl + 10*time.Second) // generous: the bound itself is a benchmark's
	for {
		l, err := b.Open("s1", func(eventlog.Record) error { return nil })
		if err == nil {
			lb = l
			break
		}
		if !errors.Is(err, eventlog.ErrLocked) || time.Now().After(deadline) {
			t.Fatalf("takeover: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if lb.Next() != 5 {
		t.Fatalf("taken over at %d, want 5", lb.Next())
	}
	appendN(t, lb, 5, 3)
	if err := lb.Close(); err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, readAll(t, b, "s1"), 8)
}

// Two writers never interleave, even one that lost its lease without
// knowing: its append after the new writer's is refused, and every later
// one too.
func TestStaleWriterRefused(t *testing.T) {
	srv := natstest.Start(t, natstest.Config{})
	opts := natsstore.Options{LeaseTTL: time.Minute}
	a := connect(t, srv, opts)
	la, err := a.Create(header("s2"))
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, la, 0, 2)
	// The lease vanishes under a (an operator purging it, a lapse): b opens.
	js := natstest.KV(t, srv, natsstore.DefaultLeases)
	if err := js.Purge(t.Context(), "s2"); err != nil {
		t.Fatal(err)
	}
	b := connect(t, srv, opts)
	lb, err := b.Open("s2", func(eventlog.Record) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	appendN(t, lb, 2, 1)
	if err := la.Append(rec(2)); err == nil || !strings.Contains(err.Error(), "another writer") {
		t.Fatalf("stale writer's append: %v, want refused", err)
	}
	if err := la.Append(rec(3)); err == nil {
		t.Fatal("stale writer's later append accepted")
	}
	wantSeqs(t, readAll(t, b, "s2"), 3)
}

// A restart of the server between appends loses nothing and the writer
// goes on.
func TestServerRestart(t *testing.T) {
	srv := natstest.Start(t, natstest.Config{})
	b := connect(t, srv, natsstore.Options{})
	l, err := b.Create(header("s3"))
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, l, 0, 10)
	srv.Restart()
	deadline := time.Now().Add(30 * time.Second)
	for i := int64(10); i < 20; {
		if err := l.Append(rec(i)); err != nil {
			if time.Now().After(deadline) {
				t.Fatalf("append %d after the restart: %v", i, err)
			}
			time.Sleep(100 * time.Millisecond) // reconnecting
			continue
		}
		i++
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, readAll(t, b, "s3"), 20)
	ids, err := b.IDs()
	if err != nil || len(ids) != 1 || ids[0] != "s3" {
		t.Fatalf("IDs = %v, %v", ids, err)
	}
}

// Ids with dots live on subjects of their own.
func TestDottedID(t *testing.T) {
	srv := natstest.Start(t, natstest.Config{})
	b := connect(t, srv, natsstore.Options{})
	for _, id := range []string{"a.b", "a", "a_b", "a-b.c"} {
		l, err := b.Create(header(id))
		if err != nil {
			t.Fatal(err)
		}
		appendN(t, l, 0, 1)
		_ = l.Close()
	}
	ids, _ := b.IDs()
	if len(ids) != 4 {
		t.Fatalf("IDs = %v", ids)
	}
	for _, id := range ids {
		if h, err := b.Read(id, 0, nil); err != nil || h.ID != id {
			t.Fatalf("Read %s: %v, %v", id, h, err)
		}
	}
}
