package openai

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoff returns the wait before retry number attempt+1: the server's
// request when it made one (wait >= 0), else RetryBase doubled per attempt,
// less up to 20% jitter; never more than RetryMax.
func (p *Provider) backoff(attempt int, wait time.Duration) time.Duration {
	if wait >= 0 {
		return min(wait, p.retryMax)
	}
	d := p.retryMax
	if attempt < 30 {
		d = min(p.retryBase<<attempt, p.retryMax)
	}
	if d <= 0 {
		return 0
	}
	return d - rand.N(d/5+1)
}

// retryAfter reads the wait a response asks for: retry-after-ms (OpenAI),
// else Retry-After in seconds or as an HTTP date. It is negative when the
// response asks none.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return -1
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || s > 1e9 {
			return -1
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// sleep waits for d or until ctx ends, returning ctx.Err() then.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
