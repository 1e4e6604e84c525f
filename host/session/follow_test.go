package session

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
)

func TestFollow(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "f")
	const turns = 50
	const total = turns * 11

	// Half the turns are logged before any follower starts.
	for n := 1; n <= turns/2; n++ {
		mustAppend(t, s, simpleTurn(n, "p")...)
	}

	ctx := context.Background()
	type result struct {
		name string
		seqs []int64
	}
	results := make(chan result)
	follow := func(name string, from int64, pause time.Duration) {
		var seqs []int64
		for ev := range s.Follow(ctx, from) {
			seqs = append(seqs, ev.Seq)
			if pause > 0 && len(seqs)%50 == 0 {
				time.Sleep(pause)
			}
		}
		results <- result{name, seqs}
	}
	go follow("early", 0, 0)
	go follow("slow", 0, 20*time.Millisecond)
	go follow("from the middle", 100, 0)
	go follow("negative start", -5, 0)

	var wg sync.WaitGroup
	wg.Go(func() {
		for n := turns/2 + 1; n <= turns; n++ {
			mustAppend(t, s, simpleTurn(n, "p")...)
		}
	})
	// A follower that starts late, after the writer is done.
	wg.Wait()
	go follow("late", 0, 0)
	// Every follower has to drain before Close ends it; Close must not
	// cut a slow one short.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	want := map[string]int64{"early": 0, "slow": 0, "from the middle": 100, "negative start": 0, "late": 0}
	for range want {
		r := <-results
		from := want[r.name]
		if len(r.seqs) != int(total-from) {
			t.Errorf("%s: %d events, want %d", r.name, len(r.seqs), total-from)
		}
		for i, seq := range r.seqs {
			if seq != from+int64(i) {
				t.Errorf("%s: event %d has seq %d, want %d", r.name, i, seq, from+int64(i))
				break
			}
		}
	}
}

func TestFollowWaitsAndStops(t *testing.T) {
	t.Parallel()
	s := create(t, newStore(t), "w")
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan event.Event)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range s.Follow(ctx, 0) {
			got <- ev
		}
	}()
	select {
	case ev := <-got:
		t.Fatalf("yielded %v from an empty session", ev)
	case <-time.After(20 * time.Millisecond):
	}
	mustAppend(t, s, event.TurnStart{Turn: 1})
	if ev := <-got; ev.Seq != 0 || ev.Type != event.TypeTurnStart {
		t.Errorf("got %+v", ev)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("follower still waiting after its context was cancelled")
	}

	// Breaking out of the loop stops it too, and a sequence can be ranged
	// again from the start.
	seq := s.Follow(context.Background(), 0)
	for range seq {
		break
	}
	mustAppend(t, s, event.UserMessage{Content: event.Text("x")})
	n := 0
	for ev := range seq {
		n++
		if ev.Seq == 1 {
			break
		}
	}
	if n != 2 {
		t.Errorf("second range yielded %d events, want 2", n)
	}
}
