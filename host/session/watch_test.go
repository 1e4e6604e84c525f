package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/session"
)

// Watch follows a file log another writer appends to, polling it.
func TestWatchPollsFiles(t *testing.T) {
	b := session.JSONL{Dir: t.TempDir()}
	l, err := b.Create(eventlog.Header{ID: "f1", CreatedAt: time.Unix(1700000000, 0).UTC(), Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	add := func(seq int64) {
		t.Helper()
		if err := l.Append(eventlog.Record{Seq: seq, Time: time.Unix(1700000000, 0).UTC(), Type: "test/x", Data: json.RawMessage(fmt.Sprint(seq))}); err != nil {
			t.Fatal(err)
		}
	}
	add(0)
	add(1)
	st := &session.Store{Backend: b}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var seqs []int64
	for ev, err := range st.Watch(ctx, "f1", 1) {
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, ev.Seq)
		if ev.Seq == 1 {
			add(2)
			add(3)
		}
		if ev.Seq == 3 {
			break
		}
	}
	if fmt.Sprint(seqs) != "[1 2 3]" {
		t.Fatalf("watched %v, want [1 2 3]", seqs)
	}
	for _, err := range st.Watch(ctx, "nope", 0) {
		if err == nil {
			t.Fatal("watch of an unknown session yielded an event")
		}
		return
	}
	t.Fatal("watch of an unknown session ended without an error")
}

// Import refuses a log Open would refuse, and writes nothing.
func TestImportRefusesBadLog(t *testing.T) {
	src := session.JSONL{Dir: t.TempDir()}
	l, err := src.Create(eventlog.Header{ID: "bad", CreatedAt: time.Unix(1700000000, 0).UTC(), Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	// a step outside any turn
	if err := l.Append(eventlog.Record{Seq: 0, Time: time.Unix(1700000000, 0).UTC(), Type: "step/start", Data: json.RawMessage(`{"turn":1,"step":1}`)}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	dst := &session.Store{Backend: session.JSONL{Dir: t.TempDir()}}
	if _, err := dst.Import(src.Path("bad")); err == nil {
		t.Fatal("a log with a step outside a turn was imported")
	}
	if ids, _ := dst.Backend.IDs(); len(ids) != 0 {
		t.Fatalf("a refused import wrote %v", ids)
	}
}
