// Package natstest runs an embedded NATS server with JetStream for tests
// (github.com/nats-io/nats-server/v2, in the test's process): bound to
// 127.0.0.1 on a free port, storing in a folder of the test's, so that the
// distributed store is tested on one machine with nothing installed.
package natstest

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Server is a running embedded server.
type Server struct {
	t    testing.TB
	opts server.Options
	srv  *server.Server
}

// Config is how Start runs the server.
type Config struct {
	// Dir is where JetStream stores (t.TempDir() when empty).
	Dir string
	// NoSync leaves syncing to the server's default (every two minutes;
	// a cluster's replicas are what makes an acknowledged write durable),
	// as a server a team runs is configured. Without it every write is
	// synced before it is acknowledged (sync_always), so that a test that
	// kills the server loses nothing it was told was stored.
	NoSync bool
}

// Start starts a server as cfg says and stops it when the test ends.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	s := &Server{t: t, opts: server.Options{
		Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true,
		JetStream: true, StoreDir: cfg.Dir, SyncAlways: !cfg.NoSync,
	}}
	s.start()
	t.Cleanup(s.Stop)
	return s
}

func (s *Server) start() {
	s.t.Helper()
	srv, err := server.NewServer(&s.opts)
	if err != nil {
		s.t.Fatalf("start nats-server: %v", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		s.t.Fatal("nats-server not ready within 10s")
	}
	s.srv = srv
	// A restart comes back on the same port.
	if a, ok := srv.Addr().(*net.TCPAddr); ok {
		s.opts.Port = a.Port
	}
}

// URL is the server's client URL (nats://127.0.0.1:PORT).
func (s *Server) URL() string { return s.srv.ClientURL() }

// Stop stops the server; Stop twice is a no-op.
func (s *Server) Stop() {
	if s.srv != nil {
		s.srv.Shutdown()
		s.srv.WaitForShutdown()
		s.srv = nil
	}
}

// Restart stops the server and starts it again on the same port and store.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// KV returns the key-value bucket name of the server, on a connection of
// its own closed when the test ends.
func KV(t testing.TB, s *Server, bucket string) jetstream.KeyValue {
	t.Helper()
	nc, err := nats.Connect(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(context.Background(), bucket)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// Process is a server started outside a test (TestMain), for a whole
// test binary: the suite run against the shared store.
type Process struct{ srv *server.Server }

// StartProcess starts a server as cfg says (cfg.Dir required); Stop it
// when the tests end.
func StartProcess(cfg Config) (*Process, error) {
	srv, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true,
		JetStream: true, StoreDir: cfg.Dir, SyncAlways: !cfg.NoSync,
	})
	if err != nil {
		return nil, err
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("nats-server not ready within 10s")
	}
	return &Process{srv: srv}, nil
}

// URL is the server's client URL.
func (p *Process) URL() string { return p.srv.ClientURL() }

// Stop stops the server.
func (p *Process) Stop() {
	p.srv.Shutdown()
	p.srv.WaitForShutdown()
}
