package openai

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, -1},
		{"zero", http.Header{"Retry-After": {"0"}}, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{"HTTP date", http.Header{"Retry-After": {"Thu, 01 Jan 2026 12:00:30 GMT"}}, 30 * time.Second},
		{"HTTP date in the past", http.Header{"Retry-After": {"Thu, 01 Jan 2026 11:00:00 GMT"}}, 0},
		{"milliseconds first", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
		{"negative", http.Header{"Retry-After": {"-3"}}, -1},
		{"garbage", http.Header{"Retry-After": {"soon"}}, -1},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.header, now); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	p := &Provider{retryBase: 100 * time.Millisecond, retryMax: time.Second}
	for attempt, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		want *= time.Millisecond
		if attempt == 5 {
			attempt = 100 // no overflow
		}
		for range 20 {
			got := p.backoff(attempt, -1)
			if got > want || got < want*8/10 {
				t.Fatalf("attempt %d: backoff %v, want %v less at most 20%%", attempt, got, want)
			}
		}
	}
	if got := p.backoff(0, 0); got != 0 {
		t.Errorf("Retry-After 0: backoff %v, want 0", got)
	}
	if got := p.backoff(0, time.Hour); got != time.Second {
		t.Errorf("Retry-After 1h: backoff %v, want RetryMax", got)
	}
}
