package natsstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/harness-dev/harness/host/eventlog"
)

// Watch implements session.WatchBackend: an ordered consumer on the
// session's subject, from its first record, that never ends before ctx.
func (b *Backend) Watch(ctx context.Context, id string, from int64, visit func(eventlog.Record) error) error {
	rctx, cancel := b.ctx()
	first, err := b.stream.GetMsg(rctx, 0, jetstream.WithGetMsgSubject(b.subject(id)))
	cancel()
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Errorf("watch session %s: no such session", id)
	}
	if err != nil {
		return fmt.Errorf("watch session %s: %w", id, err)
	}
	cons, err := b.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{b.subject(id)},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    first.Sequence + 1,
	})
	if err != nil {
		return fmt.Errorf("watch session %s: %w", id, err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(fetchBatch))
	if err != nil {
		return fmt.Errorf("watch session %s: %w", id, err)
	}
	defer it.Stop()
	for {
		msg, err := it.Next(jetstream.NextContext(ctx))
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("watch session %s: %w", id, err)
		}
		r, err := eventlog.UnmarshalRecord(msg.Data())
		if err != nil {
			return fmt.Errorf("watch session %s: %w: %w", id, eventlog.ErrCorrupt, err)
		}
		if r.Seq < from {
			continue
		}
		if err := visit(r); err != nil {
			return err
		}
	}
}
