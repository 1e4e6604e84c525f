package session

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
)

// watchPoll is how often Watch reads a log again on a backend that cannot
// be followed (WatchBackend).
const watchPoll = 200 * time.Millisecond

// Watch follows session id as another process — on this host or, with a
// shared store, any other — appends to it: it yields the events from seq
// from, then each one appended after, until ctx is done. It never takes
// the writer's hold. An error (an unknown id, a store that went away)
// is yielded once, and ends the sequence; ctx done ends it without one.
func (st *Store) Watch(ctx context.Context, id string, from int64) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		if !ValidID(id) {
			yield(event.Event{}, errors.New("watch session: not a valid session id: "+id))
			return
		}
		next := max(from, 0)
		stop := errors.New("stop")
		visit := func(r eventlog.Record) error {
			if r.Seq < next {
				return nil
			}
			ev := event.Event{Seq: r.Seq, Time: r.Time, Type: event.Type(r.Type), Data: append([]byte(nil), r.Data...)}
			if !yield(ev, nil) {
				return stop
			}
			next = r.Seq + 1
			return nil
		}
		var err error
		if w, ok := st.backend().(WatchBackend); ok {
			err = w.Watch(ctx, id, next, visit)
		} else {
			err = st.poll(ctx, id, visit)
		}
		if err != nil && !errors.Is(err, stop) && ctx.Err() == nil {
			yield(event.Event{}, err)
		}
	}
}

// poll reads log id again every watchPoll until ctx is done; visit skips
// what it has seen.
func (st *Store) poll(ctx context.Context, id string, visit func(eventlog.Record) error) error {
	t := time.NewTicker(watchPoll)
	defer t.Stop()
	for {
		if _, err := st.backend().Read(id, 0, visit); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
