package natsstore

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/harness-dev/harness/host/eventlog"
)

// fetchBatch is how many messages one pull asks for while reading a log.
const fetchBatch = 2048

// read reads session id: its header, then, when all, every record up to
// the subject's last message at the time of the call, handing those whose
// seq is from or more to visit (nil: none). It returns the seq the next
// record would carry and the stream sequence of the last message read.
func (b *Backend) read(id string, from int64, visit func(eventlog.Record) error, all bool) (eventlog.Header, int64, uint64, error) {
	ctx, cancel := b.ctx()
	last, err := b.last(ctx, id)
	if err != nil {
		cancel()
		return eventlog.Header{}, 0, 0, err
	}
	first, err := b.stream.GetMsg(ctx, 0, jetstream.WithGetMsgSubject(b.subject(id)))
	cancel()
	if err != nil {
		return eventlog.Header{}, 0, 0, fmt.Errorf("read session %s: %w", id, err)
	}
	h, err := eventlog.UnmarshalHeader(first.Data)
	if err != nil {
		return eventlog.Header{}, 0, 0, fmt.Errorf("read session %s: %w: %w", id, eventlog.ErrCorrupt, err)
	}
	if !all || first.Sequence == last {
		return h, 0, first.Sequence, nil
	}
	next, err := b.records(id, first.Sequence+1, last, func(r eventlog.Record) error {
		if visit == nil || r.Seq < from {
			return nil
		}
		return visit(r)
	})
	return h, next, last, err
}

// records hands visit the records of session id from stream sequence
// start to last, checking that their seqs count up from 0, and returns the
// count. A visit error is returned as is.
func (b *Backend) records(id string, start, last uint64, visit func(eventlog.Record) error) (int64, error) {
	ctx := context.Background()
	cons, err := b.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{b.subject(id)},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    start,
	})
	if err != nil {
		return 0, fmt.Errorf("read session %s: %w", id, err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(fetchBatch))
	if err != nil {
		return 0, fmt.Errorf("read session %s: %w", id, err)
	}
	defer it.Stop()
	var next int64
	for {
		msg, err := it.Next(jetstream.NextMaxWait(b.opts.Timeout))
		if err != nil {
			return 0, fmt.Errorf("read session %s: %w", id, err)
		}
		md, err := msg.Metadata()
		if err != nil {
			return 0, fmt.Errorf("read session %s: %w", id, err)
		}
		r, err := eventlog.UnmarshalRecord(msg.Data())
		if err == nil && r.Seq != next {
			err = fmt.Errorf("record seq %d where %d belongs", r.Seq, next)
		}
		if err != nil {
			return 0, fmt.Errorf("read session %s: message %d: %w: %w", id, md.Sequence.Stream, eventlog.ErrCorrupt, err)
		}
		next++
		if err := visit(r); err != nil {
			return 0, err
		}
		if md.Sequence.Stream >= last {
			return next, nil
		}
	}
}
