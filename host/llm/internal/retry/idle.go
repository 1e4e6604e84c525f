package retry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// ErrIdle ends a request that received nothing for the idle timeout.
var ErrIdle = errors.New("no data from the server")

// IdleClient returns a copy of c (nil: http.DefaultClient) whose requests
// end with ErrIdle when no bytes arrive for d, the wait for the response
// headers included. d <= 0 returns c unchanged.
func IdleClient(c *http.Client, d time.Duration) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	if d <= 0 {
		return c
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc := *c
	cc.Transport = idleTransport{base: base, d: d}
	return &cc
}

type idleTransport struct {
	base http.RoundTripper
	d    time.Duration
}

func (t idleTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(r.Context())
	b := &idleBody{cancel: cancel, d: t.d}
	b.timer = time.AfterFunc(t.d, func() { b.fired.Store(true); cancel() })
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		b.stop()
		if b.fired.Load() {
			return nil, ErrIdle
		}
		return nil, err
	}
	b.ReadCloser = resp.Body
	resp.Body = b
	return resp, nil
}

// idleBody restarts the idle timer on every read that brings bytes.
type idleBody struct {
	io.ReadCloser
	timer  *time.Timer
	d      time.Duration
	cancel context.CancelFunc
	fired  atomic.Bool
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.fired.Load() {
		b.timer.Reset(b.d)
	}
	if err != nil && b.fired.Load() {
		err = ErrIdle
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.stop()
	return b.ReadCloser.Close()
}

func (b *idleBody) stop() {
	b.timer.Stop()
	b.cancel()
}
