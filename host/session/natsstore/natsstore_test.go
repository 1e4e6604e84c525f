package natsstore_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/session/natsstore"
	"github.com/harness-dev/harness/host/session/natsstore/natstest"
	"github.com/harness-dev/harness/host/session/storetest"
)

// connect returns a backend on srv, closed when the test ends.
func connect(t testing.TB, srv *natstest.Server, opts natsstore.Options) *natsstore.Backend {
	t.Helper()
	b, err := natsstore.Connect(context.Background(), srv.URL(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestConformance(t *testing.T) {
	// The checks are of the contract, not of the disk: the server syncs on
	// its own schedule (TestServerRestart checks what a restart keeps), so
	// that ten checks setting up streams and buckets at once stay quick
	// on a busy machine under -race.
	srv := natstest.Start(t, natstest.Config{NoSync: true})
	var n atomic.Int64 // the checks run in parallel
	storetest.Run(t, func(t *testing.T) session.Backend {
		k := n.Add(1) // a stream of its own for each check: a fresh, empty backend
		return connect(t, srv, natsstore.Options{
			Stream:  fmt.Sprintf("S%d", k),
			Subject: fmt.Sprintf("h%d", k),
			Leases:  fmt.Sprintf("leases%d", k),
			Blobs:   fmt.Sprintf("blobs%d", k),
			Index:   fmt.Sprintf("index%d", k),
		})
	}, storetest.Options{})
}

// A session on the store keeps its images' bytes in the object store: put
// on one host, read on another.
func TestBlobs(t *testing.T) {
	srv := natstest.Start(t, natstest.Config{})
	a := &session.Store{Backend: connect(t, srv, natsstore.Options{})}
	s, err := a.Create(session.CreateOptions{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("\x89PNG not really")
	hash, err := s.PutBlob(data)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.PutBlob(data); err != nil || again != hash {
		t.Fatalf("PutBlob again: %s, %v", again, err)
	}
	_ = s.Close()
	b := &session.Store{Backend: connect(t, srv, natsstore.Options{})}
	s2, err := b.Open(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.Blob(hash)
	if err != nil || string(got) != string(data) {
		t.Fatalf("Blob on the other host: %q, %v", got, err)
	}
	if _, err := s2.Blob(strings.Repeat("0", 64)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("unknown blob: %v, want fs.ErrNotExist", err)
	}
}
