package responses

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/harness-dev/harness/host/llm"
)

// bodyTransport answers every request with one SSE body, in memory.
type bodyTransport []byte

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(b)), Request: r}, nil
}

// FuzzStream feeds arbitrary streams through the SDK's decoder and ours:
// no panic, and the llm stream contract holds (at most one finish, nothing
// after it, an error only last).
func FuzzStream(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.sse"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"output_index\":-1,\"delta\":\"x\"}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := New(Config{APIKey: testKey, MaxRetries: -1, HTTPClient: &http.Client{Transport: bodyTransport(body)}})
		if err != nil {
			t.Fatal(err)
		}
		finished, failed := false, false
		for c, err := range p.Stream(t.Context(), simple) {
			if finished || failed {
				t.Fatalf("chunk %+v / error %v after the end of the stream", c, err)
			}
			if err != nil {
				failed = true
				if _, ok := err.(*llm.Error); !ok {
					t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
				}
				continue
			}
			finished = c.Kind == llm.ChunkFinish
		}
	})
}
