// Package retry holds the retry policy shared by the providers (openai,
// anthropic, responses): exponential backoff with jitter that honours the
// server's Retry-After up to a cap, a sleep that ends with the context, the
// streaming retry loop itself (Run, Emitter), and the one-line, secret-free
// text of errors (Clean, Shown).
package retry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm"
)

// Defaults of [Policy].
const (
	DefaultMax  = 3
	DefaultBase = 500 * time.Millisecond
	DefaultCap  = 10 * time.Second
)

// Policy bounds the retries of one request.
type Policy struct {
	// Max is the number of retries; 0 means DefaultMax, negative none.
	Max int
	// Base is the first wait, doubled per retry up to Cap; a server's
	// requested wait is honoured up to Cap. Defaults DefaultBase, DefaultCap.
	Base, Cap time.Duration
}

// Normalized returns p with its defaults filled in.
func (p Policy) Normalized() Policy {
	switch {
	case p.Max == 0:
		p.Max = DefaultMax
	case p.Max < 0:
		p.Max = 0
	}
	if p.Base <= 0 {
		p.Base = DefaultBase
	}
	if p.Cap <= 0 {
		p.Cap = DefaultCap
	}
	if p.Cap < p.Base {
		p.Cap = p.Base
	}
	return p
}

// Wait returns the wait before retry number attempt+1: the server's request
// when it made one (asked >= 0), else Base doubled per attempt less up to
// 20% jitter; never more than Cap.
func (p Policy) Wait(attempt int, asked time.Duration) time.Duration {
	if asked >= 0 {
		return min(asked, p.Cap)
	}
	d := p.Cap
	if attempt < 30 {
		d = min(p.Base<<attempt, p.Cap)
	}
	if d <= 0 {
		return 0
	}
	return d - rand.N(d/5+1)
}

// After reads the wait a response asks for: retry-after-ms, else
// Retry-After in seconds or as an HTTP date. It is negative when the
// response asks none.
func After(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return -1
	}
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

// Sleep waits for d or until ctx ends, returning ctx.Err() then.
func Sleep(ctx context.Context, d time.Duration) error {
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

// Clean makes a server's text fit a one-line message: whitespace collapsed,
// every secret of at least 6 bytes masked, at most 300 runes.
func Clean(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= 6 {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = strings.TrimSpace(string(r[:299])) + "…"
	}
	return s
}

// Emitter passes chunks to a stream's consumer and remembers whether any
// reached it (then a failure is no longer retried: the loop has seen part
// of the answer) and whether the consumer asked to stop.
type Emitter struct {
	yield            func(llm.Chunk, error) bool
	yielded, stopped bool
}

// Emit passes c on; false when the consumer asked to stop.
func (e *Emitter) Emit(c llm.Chunk) bool {
	e.yielded = true
	if !e.yield(c, nil) {
		e.stopped = true
		return false
	}
	return true
}

// Run is the retry loop of a streaming provider: it calls attempt until
// one succeeds, the consumer stops, or a failure may not be retried — one
// that is not a retryable *llm.Error, comes after a chunk reached the
// consumer, or exceeds p.Max — and yields that failure (ctx.Err() once ctx
// is done). Between attempts it waits as p says, honouring the server's
// advised delay, and logs one warning naming the provider.
func Run(ctx context.Context, p Policy, provider string, log hclog.Logger, yield func(llm.Chunk, error) bool, attempt func(*Emitter) error) {
	out := &Emitter{yield: yield}
	for n := 0; ; n++ {
		err := attempt(out)
		if err == nil || out.stopped {
			return
		}
		if ctx.Err() != nil {
			yield(llm.Chunk{}, ctx.Err())
			return
		}
		le, ok := errors.AsType[*llm.Error](err)
		if out.yielded || n >= p.Max || !ok || !le.Retryable() {
			yield(llm.Chunk{}, err)
			return
		}
		asked := time.Duration(-1)
		if le.RetryAfter > 0 {
			asked = le.RetryAfter
		}
		wait := p.Wait(n, asked)
		log.Warn("model request failed; retrying",
			"provider", provider, "retry", n+1, "max_retries", p.Max, "wait", shownWait(wait), "error", le.Error())
		if err := Sleep(ctx, wait); err != nil {
			yield(llm.Chunk{}, err)
			return
		}
	}
}

// shownWait is a wait for a log line: a duration's text, to the
// millisecond ("491ms"). A time.Duration itself would be nanoseconds in a
// JSON log (a provider process's, which the host relays as 4.91e+08).
func shownWait(d time.Duration) string {
	if d >= time.Millisecond {
		d = d.Round(time.Millisecond)
	}
	return d.String()
}

// Shown returns u without credentials, query or fragment, for messages.
func Shown(u *url.URL) string {
	v := *u
	v.User = nil
	v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = "", false, "", ""
	return v.String()
}

// ParseBase parses a provider's base URL, which must be an http(s) URL
// with a host; its error never holds the URL's password.
func ParseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // its URL may carry a password
		}
		return nil, fmt.Errorf("parse base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("base URL %q is not an http(s) URL", Shown(u))
	}
	return u, nil
}

// Failure classifies a failed attempt that is no answer of the API: a
// stream that could not be decoded is ErrMalformed; an idle timeout
// (ErrIdle, after idle) and any other failure ErrTransport naming
// shownBase. The message is one line with secrets masked, and never holds
// a request URL (which may carry credentials).
func Failure(provider, shownBase string, idle time.Duration, err error, secrets ...string) *llm.Error {
	_, syn := errors.AsType[*json.SyntaxError](err)
	_, typ := errors.AsType[*json.UnmarshalTypeError](err)
	switch {
	case syn || typ:
		return &llm.Error{Kind: llm.ErrMalformed, Provider: provider, Err: err,
			Message: "the stream could not be decoded: " + Clean(err.Error(), secrets...)}
	case errors.Is(err, ErrIdle):
		return &llm.Error{Kind: llm.ErrTransport, Provider: provider, Err: err,
			Message: fmt.Sprintf("no data from %s for %s", shownBase, idle)}
	}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	return &llm.Error{Kind: llm.ErrTransport, Provider: provider, Err: err,
		Message: fmt.Sprintf("cannot reach %s: %s", shownBase, Clean(err.Error(), secrets...))}
}

// Or returns s, or def when s is empty.
func Or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
