package retry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm"
)

func TestAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, -1},
		{"nil", nil, -1},
		{"seconds", http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{"zero", http.Header{"Retry-After": {"0"}}, 0},
		{"fractional seconds", http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{"date in the past", http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{"ms wins", http.Header{"Retry-After": {"2"}, "Retry-After-Ms": {"150"}}, 150 * time.Millisecond},
		{"date", http.Header{"Retry-After": {now.Add(3 * time.Second).Format(http.TimeFormat)}}, 3 * time.Second},
		{"negative", http.Header{"Retry-After": {"-1"}}, -1},
		{"garbage", http.Header{"Retry-After": {"soon"}}, -1},
	} {
		if got := After(tc.h, now); got != tc.want {
			t.Errorf("%s: After = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWait(t *testing.T) {
	p := Policy{Base: 100 * time.Millisecond, Cap: time.Second}.Normalized()
	if got := p.Wait(0, 5*time.Second); got != time.Second {
		t.Errorf("asked wait is not capped: %v", got)
	}
	if got := p.Wait(0, 200*time.Millisecond); got != 200*time.Millisecond {
		t.Errorf("asked wait not honoured: %v", got)
	}
	for a := range 40 {
		if got := p.Wait(a, -1); got <= 0 || got > time.Second {
			t.Errorf("attempt %d: wait %v out of (0, 1s]", a, got)
		}
	}
	if n := (Policy{Max: -1}).Normalized().Max; n != 0 {
		t.Errorf("negative Max gives %d retries", n)
	}
}

// TestWaitBackoff: without an asked wait, Base doubles per attempt up to
// Cap, less at most 20% jitter, and a huge attempt does not overflow.
func TestWaitBackoff(t *testing.T) {
	p := Policy{Base: 100 * time.Millisecond, Cap: time.Second}.Normalized()
	for attempt, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		want *= time.Millisecond
		if attempt == 5 {
			attempt = 100
		}
		for range 20 {
			if got := p.Wait(attempt, -1); got > want || got < want*8/10 {
				t.Fatalf("attempt %d: wait %v, want %v less at most 20%%", attempt, got, want)
			}
		}
	}
	if got := p.Wait(0, 0); got != 0 {
		t.Errorf("asked 0: wait %v, want 0", got)
	}
}

func TestCleanMasksSecrets(t *testing.T) {
	got := Clean("bad key sk-ant-123456\n  try again", "sk-ant-123456", "abc")
	if strings.Contains(got, "sk-ant") || strings.Contains(got, "\n") {
		t.Errorf("Clean = %q", got)
	}
}

func TestIdleClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.Write([]byte("first"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // then silence
	}))
	defer srv.Close()
	c := IdleClient(nil, 100*time.Millisecond)
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if string(b) != "first" || !errors.Is(err, ErrIdle) {
		t.Errorf("read %q, %v; want the first bytes, then ErrIdle", b, err)
	}
}

func TestParseBase(t *testing.T) {
	for _, tc := range []struct{ raw, wantErr string }{
		{"https://api.example.com/v1", ""},
		{"http://localhost:8080", ""},
		{"ftp://x", "not an http(s) URL"},
		{"https://", "not an http(s) URL"},
		{"http://user:pw-secret@[::1", "parse base URL"},
	} {
		_, err := ParseBase(tc.raw)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.raw, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: error %v, want one containing %q", tc.raw, err, tc.wantErr)
		case err != nil && strings.Contains(err.Error(), "pw-secret"):
			t.Errorf("%q: the error shows the password: %v", tc.raw, err)
		}
	}
}

func TestFailure(t *testing.T) {
	var syn error
	if err := json.Unmarshal([]byte("{"), new(any)); err != nil {
		syn = err
	}
	for _, tc := range []struct {
		name string
		err  error
		kind llm.ErrorKind
		want string
	}{
		{"undecodable", fmt.Errorf("read: %w", syn), llm.ErrMalformed, "the stream could not be decoded"},
		{"idle", fmt.Errorf("read: %w", ErrIdle), llm.ErrTransport, "no data from https://gw for 5m0s"},
		{"url error", &url.Error{Op: "Post", URL: "https://u:pw-secret@gw/v1", Err: errors.New("refused key-0123456789")}, llm.ErrTransport, "cannot reach https://gw: refused [redacted]"},
	} {
		e := Failure("p", "https://gw", 5*time.Minute, tc.err, "key-0123456789")
		if e.Kind != tc.kind || !strings.Contains(e.Message, tc.want) || strings.Contains(e.Message, "pw-secret") {
			t.Errorf("%s: %s %q, want %s containing %q", tc.name, e.Kind, e.Message, tc.kind, tc.want)
		}
	}
}

// TestRunLogsWaitAsDuration: the retry warning gives its wait as a
// duration ("1ms"), also in the JSON a provider process logs, which the
// host relays (a time.Duration there was nanoseconds, shown 1e+06).
func TestRunLogsWaitAsDuration(t *testing.T) {
	var buf strings.Builder
	log := hclog.New(&hclog.LoggerOptions{JSONFormat: true, Output: &buf})
	p := Policy{Max: 1, Base: time.Millisecond, Cap: time.Millisecond}
	tries := 0
	Run(context.Background(), p, "test", log, func(llm.Chunk, error) bool { return true }, func(*Emitter) error {
		if tries++; tries == 1 {
			return &llm.Error{Provider: "test", Kind: llm.ErrRateLimit, Status: http.StatusTooManyRequests, Message: "slow down", RetryAfter: time.Millisecond}
		}
		return nil
	})
	var line map[string]any
	if err := json.Unmarshal([]byte(buf.String()), &line); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	if line["wait"] != "1ms" {
		t.Errorf("wait = %#v, want \"1ms\"; log: %s", line["wait"], buf.String())
	}
}
