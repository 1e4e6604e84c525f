package natsstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/harness-dev/harness/host/session"
)

// key is session id's key in a bucket (leases, index): its subject's last
// token, a '.' written '=' (a key may not end with '.').
func key(id string) string { return strings.ReplaceAll(id, ".", "=") }

// PutSummary implements [session.IndexBackend]: s, as JSON, is the value
// of the session's key in the bucket Options.Index.
func (b *Backend) PutSummary(id string, s session.IndexedSummary) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("index session %s: %w", id, err)
	}
	ctx, cancel := b.ctx()
	defer cancel()
	if _, err := b.index.Put(ctx, key(id), data); err != nil {
		return fmt.Errorf("index session %s: %w", id, err)
	}
	return nil
}

// Index implements [session.IndexBackend]: the lengths are the stream's
// per-subject message counts less the header (one request), the
// summaries every value of the index bucket (one watcher that ends when
// it has delivered them). A value that does not decode is left out: its
// session is read.
func (b *Backend) Index() (map[string]int64, map[string]session.IndexedSummary, error) {
	ctx, cancel := b.ctx()
	defer cancel()
	info, err := b.stream.Info(ctx, jetstream.WithSubjectFilter(b.opts.Subject+".>"))
	if err != nil {
		return nil, nil, fmt.Errorf("list sessions: %w", err)
	}
	lens := make(map[string]int64, len(info.State.Subjects))
	for subj, n := range info.State.Subjects {
		tok, ok := strings.CutPrefix(subj, b.opts.Subject+".")
		if id := strings.ReplaceAll(tok, "=", "."); ok && session.ValidID(id) && n > 0 {
			lens[id] = int64(n) - 1
		}
	}
	w, err := b.index.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, nil, fmt.Errorf("read the index %s: %w", b.opts.Index, err)
	}
	defer w.Stop()
	sums := make(map[string]session.IndexedSummary, len(lens))
	for {
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("read the index %s: %w", b.opts.Index, ctx.Err())
		case e, ok := <-w.Updates():
			if !ok {
				return nil, nil, fmt.Errorf("read the index %s: the watcher stopped", b.opts.Index)
			}
			if e == nil { // every value delivered
				return lens, sums, nil
			}
			if x, err := decodeSummary(e.Value()); err == nil {
				sums[strings.ReplaceAll(e.Key(), "=", ".")] = x
			}
		}
	}
}

// decodeSummary decodes an index value: one JSON object of
// session.IndexedSummary's shape, with no field it does not know.
func decodeSummary(data []byte) (session.IndexedSummary, error) {
	var x session.IndexedSummary
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		return session.IndexedSummary{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return session.IndexedSummary{}, errors.New("data after the summary")
	}
	return x, nil
}
