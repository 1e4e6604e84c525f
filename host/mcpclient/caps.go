package mcpclient

import (
	"context"
	"slices"
	"sync"
)

// caps is what a server's client capabilities and the server's own
// extras need of it: the set's roots and watchers, the calls in flight
// (whose contexts the server's questions are asked in), and the prompts
// and instructions of its current connection, readable without waiting
// for a start.
type caps struct {
	roots *rootList
	watch *watchers

	mu           sync.Mutex
	calls        []context.Context // in flight, oldest first
	prompts      []Prompt
	instructions string
}

// during records a call in flight with context ctx until done is called.
func (c *caps) during(ctx context.Context) (done func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, ctx)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if i := slices.Index(c.calls, ctx); i >= 0 {
			c.calls = slices.Delete(c.calls, i, i+1)
		}
	}
}

// current is the context of the call in flight that started last: a
// server's question during a call is taken to be about it (stdio says
// no more; with calls in parallel on one server, the latest is named).
func (c *caps) current() (context.Context, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.calls) == 0 {
		return nil, false
	}
	return c.calls[len(c.calls)-1], true
}

// watchers are the functions a Set calls when what it offers besides
// tools changed: a server came up, its prompts changed.
type watchers struct {
	mu sync.Mutex
	fs []func()
}

func (w *watchers) add(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fs = append(w.fs, f)
}

func (w *watchers) notify() {
	w.mu.Lock()
	fs := slices.Clone(w.fs)
	w.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// Watch has f called, in its own goroutine, each time a server of the set
// comes up or says its prompts changed: what Prompts and Instructions
// return may have changed.
func (s *Set) Watch(f func()) {
	if s == nil {
		return
	}
	s.watch.add(func() { go f() })
}

// callContext is the context a server's request made with ctx is asked
// in: ctx itself when it names the call (the SDK passes the call's
// context to the handlers of a multi round-trip call's input requests),
// else the call in flight's (a request the server sent on its own).
func (sv *server) callContext(ctx context.Context) (context.Context, bool) {
	if _, ok := CallOf(ctx); ok {
		return ctx, true
	}
	return sv.caps.current()
}
