package anthropic

import (
	"net/http"
	"testing"
	"time"
)

// TestPrefixesDoNotHang: a stream cut at any point ends (with an error or a
// finish) instead of hanging.
func TestPrefixesDoNotHang(t *testing.T) {
	b := []byte(readFile(t, "thinking_tool.sse"))
	for n := 0; n <= len(b); n += 7 {
		p, _ := New(Config{APIKey: testKey, MaxRetries: -1, HTTPClient: &http.Client{Transport: bodyTransport(b[:n])}})
		done := make(chan struct{})
		go func() {
			for range p.Stream(t.Context(), simple) {
			}
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("prefix %d hangs: %q", n, b[max(0, n-60):n])
		}
	}
}
