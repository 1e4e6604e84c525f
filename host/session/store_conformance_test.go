package session_test

import (
	"os"
	"testing"

	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/session/storetest"
)

// TestJSONLConformance runs the store conformance suite against the JSONL
// directory store.
func TestJSONLConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) session.Backend {
		return session.JSONL{Dir: t.TempDir() + "/sessions"}
	}, storetest.Options{
		// A crash in the middle of an Append leaves part of a line
		// without its '\n'.
		TearTail: func(t *testing.T, b session.Backend, id string) {
			f, err := os.OpenFile(b.(session.JSONL).Path(id), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(`{"seq":3,"time":"2026-11-29T19:47:10Z","type":"test/`); err != nil {
				t.Fatal(err)
			}
		},
	})
}
