package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// DefaultMaxMessageBytes bounds one inbound message unless
// Options.MaxMessageBytes says otherwise.
const DefaultMaxMessageBytes = 8 << 20

// ErrPeerGone is what a call gets when the input ends (or Serve returns)
// before its response came.
var ErrPeerGone = errors.New("the peer is gone: its input ended before the response")

// ErrClosed is what a write gets after Close.
var ErrClosed = errors.New("connection closed")

// methodCancelRequest cancels a request in flight, in either direction.
const methodCancelRequest = "$/cancel_request"

// Options configure a Conn.
type Options struct {
	// MaxMessageBytes bounds one inbound line; 0 means
	// DefaultMaxMessageBytes.
	MaxMessageBytes int
	// Logger receives the connection's diagnostics; nil discards them.
	Logger *slog.Logger
}

// Request is one request or notification handed to a Handler.
type Request struct {
	// ID is the request's id as it was on the wire; nil for a
	// notification.
	ID     json.RawMessage
	Method string
	// Params are the raw params, nil when the message had none.
	Params json.RawMessage

	after []func()
}

// IsNotification reports whether the message wants no response.
func (r *Request) IsNotification() bool { return r.ID == nil }

// AfterReply makes f run right after the response is written (for a
// notification, right after the handler returns). The handler calls it;
// f runs in the request's goroutine.
func (r *Request) AfterReply(f func()) { r.after = append(r.after, f) }

// Handler serves requests and notifications. For a request, it returns
// the result (encoded with encoding/json; nil is null) or an error (see
// the package doc for how it is answered). For a notification, the result
// is dropped and an error is logged, but for -32601 on a method starting
// with "_" (ACP: unknown extension notifications are ignored).
type Handler func(ctx context.Context, req *Request) (result any, err error)

// Conn is one JSON-RPC connection: messages read from in, written to out.
type Conn struct {
	in  io.Reader
	max int
	log *slog.Logger

	// base is the parent of every handler's context; Close cancels it.
	base       context.Context
	cancelBase context.CancelFunc

	wmu    sync.Mutex // serialises writes to out
	out    io.Writer
	closed bool

	mu       sync.Mutex
	inflight map[*inflight]struct{}
	finished chan struct{} // closed and replaced when a request finishes
	pending  map[string]chan Message
	gone     bool
	nextID   atomic.Int64
}

// inflight is a request being served.
type inflight struct {
	key    string // its id, idKey's spelling
	method string
	cancel context.CancelCauseFunc
}

// NewConn returns a connection reading in and writing out. Nothing is
// read before Serve.
func NewConn(in io.Reader, out io.Writer, opts Options) *Conn {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	base, cancel := context.WithCancel(context.Background())
	return &Conn{in: in, out: out, max: opts.MaxMessageBytes, log: opts.Logger, base: base, cancelBase: cancel,
		inflight: map[*inflight]struct{}{}, finished: make(chan struct{}), pending: map[string]chan Message{}}
}

// frame is one line read, or the error that ended the input.
type frame struct {
	line []byte
	size int
	over bool
	err  error
}

// Serve reads and dispatches messages until the input ends (it returns
// nil), ctx is done (ctx's error) or a read fails (that error). Requests
// still running when it returns go on; see Wait, Cancel and Close. Calls
// still waiting for their responses fail with ErrPeerGone.
func (c *Conn) Serve(ctx context.Context, h Handler) error {
	defer c.peerGone()
	frames := make(chan frame)
	stop := make(chan struct{})
	defer close(stop)
	go c.read(frames, stop)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err() // the reader may stay blocked in a read of in
		case f := <-frames:
			if f.size > 0 || f.over {
				c.dispatch(h, f)
			}
			if errors.Is(f.err, io.EOF) {
				return nil
			}
			if f.err != nil {
				return f.err
			}
		}
	}
}

// read reads lines until the input ends or stop is closed.
func (c *Conn) read(frames chan<- frame, stop <-chan struct{}) {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		var line []byte
		size, over, err := readLine(r, &line, c.max)
		select {
		case frames <- frame{line: line, size: size, over: over, err: err}:
		case <-stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// dispatch handles one line.
func (c *Conn) dispatch(h Handler, f frame) {
	if f.over {
		c.reject(idOf(f.line), &Error{Code: CodeInvalidRequest,
			Message: fmt.Sprintf("Invalid request: the message is %d bytes, over the limit of %d bytes", f.size, c.max)})
		return
	}
	if len(bytes.TrimSpace(f.line)) == 0 {
		return
	}
	m, rerr := Decode(f.line)
	if rerr != nil {
		c.reject(nil, rerr)
		return
	}
	switch m.Kind {
	case KindResponse:
		c.deliver(m)
	case KindNotification:
		if m.Method == methodCancelRequest {
			c.cancelRequest(m.Params)
			return
		}
		req := &Request{Method: m.Method, Params: m.Params}
		if _, err := h(c.base, req); err != nil {
			var e *Error
			if errors.As(err, &e) && e.Code == CodeMethodNotFound {
				c.log.Debug("notification ignored: no such method", "method", m.Method)
			} else {
				c.log.Warn("notification failed", "method", m.Method, "error", err)
			}
		}
		for _, f := range req.after {
			f()
		}
	case KindRequest:
		c.start(h, m)
	}
}

// start serves a request in a goroutine of its own.
func (c *Conn) start(h Handler, m Message) {
	key, _ := idKey(m.ID)
	ctx, cancel := context.WithCancelCause(c.base)
	fl := &inflight{key: key, method: m.Method, cancel: cancel}
	c.mu.Lock()
	c.inflight[fl] = struct{}{}
	c.mu.Unlock()
	go func() {
		defer func() {
			cancel(nil)
			c.mu.Lock()
			delete(c.inflight, fl)
			close(c.finished)
			c.finished = make(chan struct{})
			c.mu.Unlock()
		}()
		req := &Request{ID: m.ID, Method: m.Method, Params: m.Params}
		res, err := h(ctx, req)
		c.reply(req, res, err)
		for _, f := range req.after {
			f()
		}
	}()
}

// reply writes the response to req.
func (c *Conn) reply(req *Request, res any, err error) {
	out := outMessage{ID: req.ID}
	if err != nil {
		out.Error = errorOf(err)
	} else if res == nil {
		out.Result = json.RawMessage("null")
	} else {
		out.Result = res
	}
	line, eerr := encode(out)
	if eerr != nil {
		c.log.Error("response not encodable; answering an internal error", "method", req.Method, "error", eerr)
		line, _ = encode(outMessage{ID: req.ID, Error: &Error{Code: CodeInternal, Message: "Internal error: encode the result: " + oneLine(eerr.Error())}})
	}
	if werr := c.write(line); werr != nil {
		c.log.Debug("response not written", "method", req.Method, "error", werr)
	}
}

// errorOf is the error object answering err.
func errorOf(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeRequestCancelled, Message: "Request cancelled", Data: map[string]any{"error": err.Error()}}
	}
	return &Error{Code: CodeInternal, Message: "Internal error: " + oneLine(err.Error()), Data: map[string]any{"error": err.Error()}}
}

// reject answers a line that is no message; id is the request's when
// known, else null.
func (c *Conn) reject(id json.RawMessage, e *Error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	c.log.Warn("rejected a message from the peer", "code", e.Code, "error", e.Message)
	line, err := encode(outMessage{ID: id, Error: e})
	if err == nil {
		err = c.write(line)
	}
	if err != nil {
		c.log.Debug("rejection not written", "error", err)
	}
}

// cancelRequest cancels the requests in flight with the id that
// $/cancel_request names.
func (c *Conn) cancelRequest(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	key, ok := "", false
	if json.Unmarshal(params, &p) == nil {
		key, ok = idKey(p.RequestID)
	}
	if !ok {
		c.log.Warn("$/cancel_request without a valid requestId; ignored", "params", oneLine(string(params)))
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for fl := range c.inflight {
		if fl.key == key {
			fl.cancel(context.Canceled)
		}
	}
}

// deliver hands a response to the call waiting for it.
func (c *Conn) deliver(m Message) {
	key, ok := idKey(m.ID)
	c.mu.Lock()
	ch := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if !ok || ch == nil {
		c.log.Info("response to no pending request; dropped", "id", oneLine(string(m.ID)))
		return
	}
	ch <- m // buffered
}

// peerGone fails every call still waiting: no response will come.
func (c *Conn) peerGone() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gone = true
	for key, ch := range c.pending {
		close(ch)
		delete(c.pending, key)
	}
}

// Call sends a request of method with params and decodes its result into
// result (unless nil). An error response is returned as an *Error. When
// ctx ends first, the peer is sent $/cancel_request and ctx's error is
// returned; when the input ends first, ErrPeerGone.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	key := strconv.FormatInt(c.nextID.Add(1), 10)
	line, err := encode(outMessage{ID: json.RawMessage(key), Method: method, Params: params})
	if err != nil {
		return encodeError(method, err)
	}
	ch := make(chan Message, 1)
	c.mu.Lock()
	if c.gone {
		c.mu.Unlock()
		return ErrPeerGone
	}
	c.pending[key] = ch
	c.mu.Unlock()
	if err := c.write(line); err != nil {
		c.dropPending(key)
		return fmt.Errorf("send %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return ErrPeerGone
		}
		if m.Error != nil {
			return m.Error
		}
		if result != nil && len(m.Result) > 0 {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("decode the result of %s: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		if c.dropPending(key) {
			if err := c.Notify(methodCancelRequest, map[string]json.RawMessage{"requestId": json.RawMessage(key)}); err != nil {
				c.log.Debug("$/cancel_request not sent", "error", err)
			}
		}
		return ctx.Err()
	}
}

// dropPending forgets a call; false if its response came (or the peer
// went) meanwhile.
func (c *Conn) dropPending(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[key]
	delete(c.pending, key)
	return ok
}

// Notify sends a notification of method with params.
func (c *Conn) Notify(method string, params any) error {
	line, err := EncodeNotification(method, params)
	if err != nil {
		return err
	}
	return c.write(line)
}

// Send writes messages encoded ahead, in order, in one write.
func (c *Conn) Send(msgs ...Encoded) error {
	if len(msgs) == 1 {
		return c.write(msgs[0])
	}
	n := 0
	for _, m := range msgs {
		n += len(m)
	}
	buf := make([]byte, 0, n)
	for _, m := range msgs {
		buf = append(buf, m...)
	}
	return c.write(buf)
}

// write writes whole lines, one write at a time.
func (c *Conn) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed {
		return ErrClosed
	}
	_, err := c.out.Write(b)
	return err
}

// Wait waits until no request whose method match selects (nil: any) is
// being served — its response written — or ctx is done. It returns how
// many still are.
func (c *Conn) Wait(ctx context.Context, match func(method string) bool) int {
	for {
		c.mu.Lock()
		n := 0
		for fl := range c.inflight {
			if match == nil || match(fl.method) {
				n++
			}
		}
		finished := c.finished
		c.mu.Unlock()
		if n == 0 {
			return 0
		}
		select {
		case <-finished:
		case <-ctx.Done():
			return n
		}
	}
}

// Cancel cancels the context of every request being served whose method
// match selects (nil: any).
func (c *Conn) Cancel(match func(method string) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for fl := range c.inflight {
		if match == nil || match(fl.method) {
			fl.cancel(context.Canceled)
		}
	}
}

// Close cancels every request still being served and makes every later
// write return ErrClosed: once it returns, nothing more reaches out.
func (c *Conn) Close() {
	c.cancelBase()
	c.wmu.Lock()
	c.closed = true
	c.wmu.Unlock()
}

// MethodIs is a match for Wait and Cancel: the methods named.
func MethodIs(methods ...string) func(string) bool {
	return func(m string) bool { return slices.Contains(methods, m) }
}
