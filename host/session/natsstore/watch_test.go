package natsstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/session/natsstore"
	"github.com/harness-dev/harness/host/session/natsstore/natstest"
)

// A session written on one host is followed live on another: every event,
// in order, those logged before the watch and those after.
func TestWatchAcrossHosts(t *testing.T) {
	srv := natstest.Start(t, natstest.Config{})
	writer := connect(t, srv, natsstore.Options{})
	l, err := writer.Create(header("w1"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	appendN(t, l, 0, 3)

	st := &session.Store{Backend: connect(t, srv, natsstore.Options{})}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	got := make(chan int64)
	go func() {
		defer close(got)
		for ev, err := range st.Watch(ctx, "w1", 1) {
			if err != nil {
				t.Error(err)
				return
			}
			got <- ev.Seq
		}
	}()
	for want := int64(1); want < 10; want++ {
		if want == 3 {
			appendN(t, l, 3, 7) // while the watcher waits
		}
		select {
		case seq := <-got:
			if seq != want {
				t.Fatalf("watched seq %d, want %d", seq, want)
			}
		case <-ctx.Done():
			t.Fatalf("watch stalled before seq %d", want)
		}
	}
	cancel()
	for range got {
	}
}
