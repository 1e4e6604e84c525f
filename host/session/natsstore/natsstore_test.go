package natsstore_test

import (
	"context"
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
	srv := natstest.Start(t, "")
	n := 0
	storetest.Run(t, func(t *testing.T) session.Backend {
		n++ // a stream of its own for each check: a fresh, empty backend
		return connect(t, srv, natsstore.Options{
			Stream:  "S" + string(rune('A'+n)),
			Subject: "h" + string(rune('a'+n)),
			Leases:  "leases" + string(rune('a'+n)),
		})
	}, storetest.Options{})
}
