package natsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/session"
)

// Defaults of Options.
const (
	DefaultStream   = "HARNESS_SESSIONS"
	DefaultSubject  = "harness.session"
	DefaultLeases   = "harness-leases"
	DefaultBlobs    = "harness-blobs"
	DefaultIndex    = "harness-index"
	DefaultLeaseTTL = 5 * time.Second
	DefaultTimeout  = 10 * time.Second
)

// Options name where the sessions are kept and how they are held.
type Options struct {
	// Stream is the stream's name; Subject the prefix of its subjects;
	// Leases the KV bucket of the writers' leases; Blobs the object
	// store of the sessions' blobs; Index the KV bucket of the sessions'
	// summaries.
	Stream, Subject, Leases, Blobs, Index string
	// Replicas is the stream's and the bucket's replica count when this
	// backend creates them (0: 1).
	Replicas int
	// LeaseTTL is how long a writer's lease outlives its last renewal.
	LeaseTTL time.Duration
	// Holder names this writer to others (0: "<hostname> pid <pid>").
	Holder string
	// Timeout bounds one request to the server.
	Timeout time.Duration
}

func (o *Options) fill() {
	if o.Stream == "" {
		o.Stream = DefaultStream
	}
	if o.Subject == "" {
		o.Subject = DefaultSubject
	}
	if o.Leases == "" {
		o.Leases = DefaultLeases
	}
	if o.Blobs == "" {
		o.Blobs = DefaultBlobs
	}
	if o.Index == "" {
		o.Index = DefaultIndex
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Holder == "" {
		host, _ := os.Hostname()
		o.Holder = fmt.Sprintf("%s pid %d", host, os.Getpid())
	}
}

// Backend is a [session.Backend] on JetStream. Its methods are safe for
// concurrent use.
type Backend struct {
	opts   Options
	js     jetstream.JetStream
	stream jetstream.Stream
	leases jetstream.KeyValue
	index  jetstream.KeyValue
	nc     *nats.Conn // closed by Close when Connect made it
	url    string     // redacted, for Where

	blobsOnce sync.Once
	blobs     jetstream.ObjectStore
	blobsErr  error
}

var (
	_ session.Backend      = (*Backend)(nil)
	_ session.BlobBackend  = (*Backend)(nil)
	_ session.IndexBackend = (*Backend)(nil)
)

// Connect dials the server at url (nats://, tls://, a comma-separated
// list) with the standard NATS options (credentials, nkeys, TLS) and
// returns the backend on it; Close closes the connection.
func Connect(ctx context.Context, url string, opts Options, natsOpts ...nats.Option) (*Backend, error) {
	natsOpts = append([]nats.Option{nats.Name("harness"), nats.MaxReconnects(-1)}, natsOpts...)
	nc, err := nats.Connect(url, natsOpts...)
	if err != nil {
		return nil, fmt.Errorf("connect to the session store %s: %w", redactURL(url), err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("use JetStream on %s: %w", redactURL(url), err)
	}
	b, err := New(ctx, js, opts)
	if err != nil {
		nc.Close()
		return nil, err
	}
	b.nc, b.url = nc, redactURL(url)
	return b, nil
}

// New returns the backend on js, creating its stream and buckets when they
// do not exist (an existing stream is used as it is).
func New(parent context.Context, js jetstream.JetStream, opts Options) (*Backend, error) {
	opts.fill()
	b := &Backend{opts: opts, js: js}
	// Each request is bounded by opts.Timeout, as every later one is (the
	// client's own default, 5 s, is short for a server syncing every
	// write under load).
	ctx, cancel := context.WithTimeout(parent, opts.Timeout)
	defer cancel()
	var err error
	b.stream, err = js.Stream(ctx, opts.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		b.stream, err = js.CreateStream(ctx, jetstream.StreamConfig{
			Name:        opts.Stream,
			Description: "harness sessions: one subject per session, the header then one message per event",
			Subjects:    []string{opts.Subject + ".>"},
			Storage:     jetstream.FileStorage,
			Replicas:    opts.Replicas,
			Retention:   jetstream.LimitsPolicy,
			Discard:     jetstream.DiscardNew,
			AllowDirect: true,
		})
	}
	if err != nil {
		return nil, fmt.Errorf("open stream %s: %w", opts.Stream, err)
	}
	ctx, cancel = context.WithTimeout(parent, opts.Timeout)
	defer cancel()
	b.leases, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      opts.Leases,
		Description: "harness session writers' leases",
		TTL:         opts.LeaseTTL,
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    opts.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", opts.Leases, err)
	}
	ctx, cancel = context.WithTimeout(parent, opts.Timeout)
	defer cancel()
	b.index, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      opts.Index,
		Description: "harness sessions' summaries, for listing: a cache of what the logs say",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    opts.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", opts.Index, err)
	}
	return b, nil
}

// Close closes the connection Connect made; a Backend from New leaves
// its JetStream to its caller.
func (b *Backend) Close() error {
	if b.nc != nil {
		b.nc.Close()
	}
	return nil
}

// Where names the store for people: the server's URL (without
// credentials) and the stream.
func (b *Backend) Where() string {
	if b.url == "" {
		return "stream " + b.opts.Stream
	}
	return b.url + " (stream " + b.opts.Stream + ")"
}

// LeaseTTL is how long a dead writer's lease keeps its session.
func (b *Backend) LeaseTTL() time.Duration { return b.opts.LeaseTTL }

func (b *Backend) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), b.opts.Timeout)
}

// subject is session id's subject: a '.' of the id is written '=' (ids
// never hold '=').
func (b *Backend) subject(id string) string {
	return b.opts.Subject + "." + strings.ReplaceAll(id, ".", "=")
}

// Create implements [session.Backend].
func (b *Backend) Create(h eventlog.Header) (session.Log, error) {
	if !session.ValidID(h.ID) {
		return nil, fmt.Errorf("%q is not a valid session id", h.ID)
	}
	line, err := eventlog.MarshalHeader(h)
	if err != nil {
		return nil, err
	}
	if h.Version == 0 {
		h.Version = eventlog.Version
	}
	ctx, cancel := b.ctx()
	defer cancel()
	lease, err := b.lease(ctx, h.ID)
	if err != nil {
		if errors.Is(err, eventlog.ErrLocked) {
			if _, e := b.last(ctx, h.ID); e == nil {
				return nil, fmt.Errorf("create session %s: %w", h.ID, fs.ErrExist)
			}
		}
		return nil, err
	}
	ack, err := b.js.Publish(ctx, b.subject(h.ID), line,
		jetstream.WithExpectStream(b.opts.Stream), jetstream.WithExpectLastSequencePerSubject(0))
	if err != nil {
		lease.release()
		if wrongLast(err) {
			return nil, fmt.Errorf("create session %s: %w", h.ID, fs.ErrExist)
		}
		return nil, fmt.Errorf("create session %s: %w", h.ID, err)
	}
	return b.newLog(h, lease, ack.Sequence, 0), nil
}

// Open implements [session.Backend].
func (b *Backend) Open(id string, visit func(eventlog.Record) error) (session.Log, error) {
	if !session.ValidID(id) {
		return nil, fmt.Errorf("%q is not a valid session id", id)
	}
	ctx, cancel := b.ctx()
	lease, err := b.lease(ctx, id)
	cancel()
	if err != nil {
		return nil, err
	}
	h, next, last, err := b.read(id, 0, visit, true)
	if err != nil {
		lease.release()
		return nil, err
	}
	return b.newLog(h, lease, last, next), nil
}

// Read implements [session.Backend].
func (b *Backend) Read(id string, from int64, visit func(eventlog.Record) error) (eventlog.Header, error) {
	if !session.ValidID(id) {
		return eventlog.Header{}, fmt.Errorf("%q is not a valid session id", id)
	}
	h, _, _, err := b.read(id, from, visit, visit != nil)
	return h, err
}

// IDs implements [session.Backend]: the stream's subjects.
func (b *Backend) IDs() ([]string, error) {
	ctx, cancel := b.ctx()
	defer cancel()
	info, err := b.stream.Info(ctx, jetstream.WithSubjectFilter(b.opts.Subject+".>"))
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	ids := make([]string, 0, len(info.State.Subjects))
	for subj := range info.State.Subjects {
		tok, ok := strings.CutPrefix(subj, b.opts.Subject+".")
		if id := strings.ReplaceAll(tok, "=", "."); ok && session.ValidID(id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// last returns the stream sequence of session id's last message; an
// unknown id yields fs.ErrNotExist.
func (b *Backend) last(ctx context.Context, id string) (uint64, error) {
	m, err := b.stream.GetLastMsgForSubject(ctx, b.subject(id))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, fmt.Errorf("session %s: %w", id, fs.ErrNotExist)
	}
	if err != nil {
		return 0, fmt.Errorf("read session %s: %w", id, err)
	}
	return m.Sequence, nil
}

func wrongLast(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// redactURL is url without user information.
func redactURL(url string) string {
	var out []string
	for _, u := range strings.Split(url, ",") {
		if scheme, rest, ok := strings.Cut(u, "://"); ok {
			if at := strings.LastIndex(rest, "@"); at >= 0 {
				u = scheme + "://[redacted]@" + rest[at+1:]
			}
		}
		out = append(out, u)
	}
	return strings.Join(out, ",")
}
