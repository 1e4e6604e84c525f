package natsstore_test

import (
	"slices"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/session/natsstore"
	"github.com/harness-dev/harness/host/session/natsstore/natstest"
)

// The index is shared by hosts, and what it holds is checked, not
// trusted: an entry that does not decode, or that no writer could have
// made, is passed over and its session's log read; an entry of a session
// the stream does not hold lists nothing.
func TestIndexEntries(t *testing.T) {
	srv := natstest.Start(t, natstest.Config{})
	a := &session.Store{Backend: connect(t, srv, natsstore.Options{})}
	ids := []string{"s1", "s.2", "s3.", "s4"}
	for _, id := range ids {
		s, err := a.Create(session.CreateOptions{ID: id, Cwd: "/w"})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []event.Payload{event.TurnStart{Turn: 1}, event.UserMessage{Content: event.Text("about " + id)},
			event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted}} {
			if _, err := s.Append(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	b := connect(t, srv, natsstore.Options{}) // another host
	lens, sums, err := b.Index()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if lens[id] != 3 || sums[id].Next != 3 || sums[id].FirstPrompt != "about "+id {
			t.Errorf("%s on the other host: %d records, entry %+v", id, lens[id], sums[id])
		}
	}

	kv := natstest.KV(t, srv, natsstore.DefaultIndex)
	for key, value := range map[string]string{
		"s=2":   "not json",
		"s3=":   `{"next":3,"cwd":"/w","turns":9,"bogus":true}`,
		"s4":    `{"next":3,"cwd":"/w","firstPrompt":"two\nlines"}`,
		"ghost": `{"next":0,"cwd":"/nowhere"}`,
	} {
		if _, err := kv.PutString(t.Context(), key, value); err != nil {
			t.Fatal(err)
		}
	}
	list, err := (&session.Store{Backend: b}).List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range list {
		if s.Err != nil || s.Turns != 1 || s.FirstPrompt != "about "+s.ID || s.Cwd != "/w" {
			t.Errorf("listed %+v", s)
		}
		got = append(got, s.ID)
	}
	if slices.Sort(got); !slices.Equal(got, []string{"s.2", "s1", "s3.", "s4"}) {
		t.Errorf("listed %q, want the four sessions", got)
	}
}

// A session on the store is listed from the index once its writer puts
// it, on another host as well, and its entry follows it: a turn later it
// is current again.
func TestIndexFollowsWriter(t *testing.T) {
	srv := natstest.Start(t, natstest.Config{})
	a := &session.Store{Backend: connect(t, srv, natsstore.Options{})}
	b := connect(t, srv, natsstore.Options{})
	s, err := a.Create(session.CreateOptions{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for turn := 1; turn <= 3; turn++ {
		for _, p := range []event.Payload{event.TurnStart{Turn: turn}, event.UserMessage{Content: event.Text("go")},
			event.TurnEnd{Turn: turn, Reason: event.ReasonCompleted, Usage: &event.Usage{InputTokens: 100, OutputTokens: 10}}} {
			if _, err := s.Append(p); err != nil {
				t.Fatal(err)
			}
		}
		lens, sums, err := b.Index()
		if err != nil {
			t.Fatal(err)
		}
		x := sums[s.ID()]
		if n := int64(s.Len()); lens[s.ID()] != n || x.Next != n || x.Turns != turn ||
			len(x.Usage) != 1 || x.Usage[0].Usage.InputTokens != 100*turn || !x.UpdatedAt.Equal(s.Events()[n-1].Time.Truncate(0)) {
			t.Errorf("after turn %d (%d events): log %d records, entry %+v", turn, n, lens[s.ID()], x)
		}
	}
}

// The index is a cache: with its bucket gone, puts fail without failing
// a turn or a Close, and List reads every log.
func TestIndexGone(t *testing.T) {
	srv := natstest.Start(t, natstest.Config{})
	st := &session.Store{Backend: connect(t, srv, natsstore.Options{})}
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteKeyValue(t.Context(), natsstore.DefaultIndex); err != nil {
		t.Fatal(err)
	}
	s, err := st.Create(session.CreateOptions{ID: "s", Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []event.Payload{event.TurnStart{Turn: 1}, event.UserMessage{Content: event.Text("still here")},
		event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted}} {
		if _, err := s.Append(p); err != nil {
			t.Fatalf("append %s without an index: %v", p.EventType(), err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close without an index: %v", err)
	}
	list, err := st.List()
	if err != nil || len(list) != 1 || list[0].FirstPrompt != "still here" || list[0].Turns != 1 {
		t.Fatalf("List without an index: %+v, %v", list, err)
	}
}
