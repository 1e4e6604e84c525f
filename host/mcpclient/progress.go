package mcpclient

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressKey is the context key of WithProgress.
type progressKey struct{}

// WithProgress returns ctx carrying f, which a Set.Call in that context
// hands the server's notifications/progress to as live output: one line
// each ("message (3/10)"), at most one call of f every progressEvery
// (what arrives between is joined), none once the call returned.
func WithProgress(ctx context.Context, f func(text string)) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, f)
}

func progressOf(ctx context.Context) func(string) {
	f, _ := ctx.Value(progressKey{}).(func(string))
	return f
}

const (
	// progressEvery spaces the live output of one call: at most 10
	// updates a second, as bash's.
	progressEvery = 100 * time.Millisecond
	// maxProgressLine bounds one notification's line, in bytes.
	maxProgressLine = 1000
)

// progress routes the notifications/progress of a server's connections to
// the calls waiting for them, by progress token. Tokens are strings,
// unique for the server's lifetime, so that a notification about a call
// that ended, of another connection, or with a token harness never sent
// matches nothing and is ignored.
type progress struct {
	mu    sync.Mutex
	next  int64
	calls map[string]*progressCall
}

// progressCall is one running call's live output.
type progressCall struct {
	cs *mcp.ClientSession // the connection the call went out on
	f  func(string)

	mu      sync.Mutex
	pending strings.Builder // lines not sent yet
	last    time.Time       // when f was last called
	timer   *time.Timer     // armed while pending waits
	ended   bool
}

// start registers a call on cs whose notifications go to f and returns
// the token to send with it and end, which the caller must call when the
// call has returned: f is not called after end returns.
func (p *progress) start(cs *mcp.ClientSession, f func(string)) (token string, end func()) {
	c := &progressCall{cs: cs, f: f}
	p.mu.Lock()
	p.next++
	token = "harness-" + strconv.FormatInt(p.next, 10)
	if p.calls == nil {
		p.calls = map[string]*progressCall{}
	}
	p.calls[token] = c
	p.mu.Unlock()
	return token, func() {
		p.mu.Lock()
		delete(p.calls, token)
		p.mu.Unlock()
		c.end()
	}
}

// notify delivers a notification cs received to the call it names.
func (p *progress) notify(cs *mcp.ClientSession, n *mcp.ProgressNotificationParams) {
	if n == nil {
		return
	}
	token, ok := n.ProgressToken.(string)
	if !ok {
		return
	}
	p.mu.Lock()
	c := p.calls[token]
	p.mu.Unlock()
	if c == nil || c.cs != cs {
		return
	}
	c.add(progressLine(n))
}

// add queues line and sends what is queued unless f was called less than
// progressEvery ago; then a timer sends it.
func (c *progressCall) add(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.pending.WriteString(line)
	if c.timer != nil {
		return // the timer sends it
	}
	if wait := progressEvery - time.Since(c.last); wait > 0 {
		c.timer = time.AfterFunc(wait, c.flush)
		return
	}
	c.sendLocked()
}

// flush sends what is queued, from the timer.
func (c *progressCall) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer = nil
	if !c.ended {
		c.sendLocked()
	}
}

func (c *progressCall) sendLocked() {
	if c.pending.Len() == 0 {
		return
	}
	text := c.pending.String()
	c.pending.Reset()
	c.last = time.Now()
	c.f(text)
}

// end stops the call's output: what is still queued is dropped (the
// result follows), and f is not called again.
func (c *progressCall) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
}

// progressLine is one notification as a line of live output: its message
// on one line, cut to maxProgressLine bytes, then the progress
// ("3/10" with a total, "3" without).
func progressLine(n *mcp.ProgressNotificationParams) string {
	msg := strings.Join(strings.Fields(strings.ToValidUTF8(n.Message, "\uFFFD")), " ")
	if len(msg) > maxProgressLine {
		cut := maxProgressLine
		for cut > 0 && !utf8Start(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	count := strconv.FormatFloat(n.Progress, 'f', -1, 64)
	if n.Total > 0 {
		count += "/" + strconv.FormatFloat(n.Total, 'f', -1, 64)
	}
	if msg == "" {
		return fmt.Sprintf("progress %s\n", count)
	}
	return fmt.Sprintf("%s (%s)\n", msg, count)
}

// utf8Start reports whether b starts a UTF-8 sequence.
func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
