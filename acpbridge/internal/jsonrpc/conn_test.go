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
	"strings"
	"sync"
	"testing"
	"time"
)

// peer drives a Conn through pipes, as a client would.
type peer struct {
	t    *testing.T
	conn *Conn
	in   *io.PipeWriter // the conn's input
	out  chan string    // the conn's output, line by line
	logs *logRecorder
	done chan error // Serve's result
}

// logRecorder keeps the messages logged.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

func (r *logRecorder) has(sub string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.msgs {
		if strings.Contains(m, sub) {
			return true
		}
	}
	return false
}

func newPeer(t *testing.T, h Handler, max int) *peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	logs := &logRecorder{}
	c := NewConn(inR, outW, Options{MaxMessageBytes: max, Logger: slog.New(logs)})
	p := &peer{t: t, conn: c, in: inW, out: make(chan string, 100), logs: logs, done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.out <- sc.Text()
		}
	}()
	go func() { p.done <- c.Serve(context.Background(), h) }()
	t.Cleanup(func() {
		inW.Close()
		c.Close()
		outR.Close()
	})
	return p
}

func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// next reads the next line the conn wrote, waiting up to 5 s.
func (p *peer) next() string {
	p.t.Helper()
	select {
	case l := <-p.out:
		return l
	case <-time.After(5 * time.Second):
		p.t.Fatal("no output within 5 s")
		return ""
	}
}

// echo answers a request with its method and params; "fail" fails,
// "notify" notifies first; notifications are recorded.
type echo struct {
	mu    sync.Mutex
	notes []string
}

func (e *echo) handle(_ context.Context, req *Request) (any, error) {
	if req.IsNotification() {
		e.mu.Lock()
		e.notes = append(e.notes, req.Method)
		e.mu.Unlock()
		return nil, nil
	}
	switch req.Method {
	case "fail":
		return nil, errors.New("disk on fire")
	case "invalid":
		return nil, &Error{Code: CodeInvalidParams, Message: "Invalid params: no"}
	case "nothing":
		return nil, nil
	}
	if !strings.HasPrefix(req.Method, "echo") {
		return nil, MethodNotFound(req.Method)
	}
	return map[string]any{"method": req.Method, "params": req.Params}, nil
}

// TestFraming: what comes in, line by line, and what goes out for it.
func TestFraming(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 2048)
	bigIn := `{"jsonrpc":"2.0","id":"big","method":"echo","params":{"t":"` + big + `"}}`
	// past the first idPrefixBytes, the id is not looked for
	huge := strings.Repeat("y", idPrefixBytes)
	hugeIn := `{"jsonrpc":"2.0","method":"echo","params":{"t":"` + huge + `"},"id":7}`
	tests := []struct {
		name, in string
		out      string // "" : nothing is answered
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}`, `{"jsonrpc":"2.0","id":1,"result":{"method":"echo","params":{"a":1}}}`},
		{"string id kept", `{"jsonrpc":"2.0","id":"x-1","method":"echo"}`, `{"jsonrpc":"2.0","id":"x-1","result":{"method":"echo","params":null}}`},
		{"null result", `{"jsonrpc":"2.0","id":2,"method":"nothing"}`, `{"jsonrpc":"2.0","id":2,"result":null}`},
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"no/such"}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":{"method":"no/such"}}}`},
		{"handler error", `{"jsonrpc":"2.0","id":4,"method":"fail"}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Internal error: disk on fire","data":{"error":"disk on fire"}}}`},
		{"handler's own error", `{"jsonrpc":"2.0","id":5,"method":"invalid"}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: no"}}`},
		{"notification", `{"jsonrpc":"2.0","method":"echo/note"}`, ""},
		{"unknown notification", `{"jsonrpc":"2.0","method":"_zed/whatever"}`, ""},
		{"unknown response id", `{"jsonrpc":"2.0","id":99,"result":{}}`, ""},
		{"blank", `   `, ""},
		{"not json", `this is not json`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON: invalid character 'h' in literal true (expecting 'r')"}}`},
		{"non-object", `42`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a message must be a JSON object"}}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"echo"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: JSON-RPC batches are not supported"}}`},
		{"neither", `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a message needs a method or an id"}}`},
		{"oversize with id", bigIn, fmt.Sprintf(`{"jsonrpc":"2.0","id":"big","error":{"code":-32600,"message":"Invalid request: the message is %d bytes, over the limit of 1024 bytes"}}`, len(bigIn))},
		{"oversize, id far", hugeIn, fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: the message is %d bytes, over the limit of 1024 bytes"}}`, len(hugeIn))},
	}
	e := &echo{}
	p := newPeer(t, e.handle, 1024)
	for _, tc := range tests {
		p.send(tc.in)
		// A request after each line shows that nothing else was
		// answered in between, and that the connection goes on.
		p.send(`{"jsonrpc":"2.0","id":"ping","method":"echo"}`)
		// Requests are answered in any order.
		got := []string{p.next()}
		if tc.out != "" {
			got = append(got, p.next())
		}
		pinged := false
		for _, l := range got {
			switch {
			case strings.HasPrefix(l, `{"jsonrpc":"2.0","id":"ping","result"`) && !pinged:
				pinged = true
			case l != tc.out:
				t.Errorf("%s: answered\n%s\nwant\n%s", tc.name, l, tc.out)
			}
		}
		if !pinged {
			t.Errorf("%s: the ping after it got no answer: %q", tc.name, got)
		}
	}
	e.mu.Lock()
	notes := strings.Join(e.notes, " ")
	e.mu.Unlock()
	if notes != "echo/note _zed/whatever" {
		t.Errorf("the handler saw the notifications %q", notes)
	}
	if !p.logs.has("response to no pending request") {
		t.Errorf("the unknown response was not logged: %q", p.logs.msgs)
	}
}

// TestCallsMatchResponsesByID: two calls answered in reverse order get
// their own results; an error response is an *Error.
func TestCallsMatchResponsesByID(t *testing.T) {
	t.Parallel()
	p := newPeer(t, (&echo{}).handle, 0)
	type result struct {
		v   string
		err error
	}
	results := make(chan result, 3)
	call := func(method string) {
		var v string
		err := p.conn.Call(context.Background(), method, map[string]string{"q": method}, &v)
		results <- result{method + "=" + v, err}
	}
	go call("first")
	first := p.next()
	go call("second")
	second := p.next()
	go call("third")
	third := p.next()
	var ids [3]json.RawMessage
	for i, l := range []string{first, second, third} {
		var m struct {
			ID     json.RawMessage
			Method string
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.ID == nil {
			t.Fatalf("request %s: %v", l, err)
		}
		ids[i] = m.ID
	}
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"nope"}}`, ids[2]))
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s.0,"result":"two"}`, ids[1])) // 2.0 is 2
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"one"}`, ids[0]))
	got := map[string]error{}
	for range 3 {
		r := <-results
		got[r.v] = r.err
	}
	if err, ok := got["first=one"]; !ok || err != nil {
		t.Errorf("first call: %v", got)
	}
	if err, ok := got["second=two"]; !ok || err != nil {
		t.Errorf("second call: %v", got)
	}
	var e *Error
	if err, ok := got["third="]; !ok || !errors.As(err, &e) || e.Code != -32000 {
		t.Errorf("third call: %v", got)
	}
}

// TestCallCancelled: a call whose context ends sends $/cancel_request for
// its id and returns the context's error; a late response is dropped.
func TestCallCancelled(t *testing.T) {
	t.Parallel()
	p := newPeer(t, (&echo{}).handle, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.conn.Call(ctx, "slow", nil, nil) }()
	var req struct{ ID json.RawMessage }
	json.Unmarshal([]byte(p.next()), &req)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Call = %v, want context.Canceled", err)
	}
	want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":%s}}`, req.ID)
	if got := p.next(); got != want {
		t.Errorf("after the cancel: %s, want %s", got, want)
	}
}

// TestCallPeerGone: calls waiting when the input ends fail at once, and
// later calls too.
func TestCallPeerGone(t *testing.T) {
	t.Parallel()
	p := newPeer(t, (&echo{}).handle, 0)
	done := make(chan error, 1)
	go func() { done <- p.conn.Call(context.Background(), "ask", nil, nil) }()
	p.next()
	p.in.Close()
	if err := <-done; !errors.Is(err, ErrPeerGone) {
		t.Errorf("waiting Call = %v, want ErrPeerGone", err)
	}
	if err := <-p.done; err != nil {
		t.Errorf("Serve = %v, want nil at the end of the input", err)
	}
	if err := p.conn.Call(context.Background(), "ask", nil, nil); !errors.Is(err, ErrPeerGone) {
		t.Errorf("later Call = %v, want ErrPeerGone", err)
	}
}

// TestCancelRequest: $/cancel_request cancels the request it names, which
// answers as it sees fit (here: -32800 from its context's error).
func TestCancelRequest(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	p := newPeer(t, func(ctx context.Context, req *Request) (any, error) {
		if req.Method != "wait" {
			return "other", nil
		}
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}, 0)
	p.send(`{"jsonrpc":"2.0","id":"w","method":"wait"}`)
	<-started
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"other"}}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"x"}`)
	if got := p.next(); got != `{"jsonrpc":"2.0","id":1,"result":"other"}` {
		t.Fatalf("a cancel naming another id cancelled: %s", got)
	}
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"w"}}`)
	if got := p.next(); got != `{"jsonrpc":"2.0","id":"w","error":{"code":-32800,"message":"Request cancelled","data":{"error":"context canceled"}}}` {
		t.Errorf("cancelled request answered %s", got)
	}
}

// TestDrainOnClose: a request in flight when the input ends is answered
// before Wait returns, its AfterReply after the response; after Close
// nothing more is written.
func TestDrainOnClose(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan struct{})
	var out lockedBuffer
	inR, inW := io.Pipe()
	c := NewConn(inR, &out, Options{})
	h := func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-release // ignores ctx: an answer is still due
		req.AfterReply(func() { c.Notify("after", nil) })
		return "done", nil
	}
	served := make(chan error, 1)
	go func() { served <- c.Serve(context.Background(), h) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"slow"}`+"\n")
	<-started
	inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	if n := c.Wait(ctx, nil); n != 1 {
		t.Errorf("Wait with the request running = %d, want 1", n)
	}
	cancel()
	close(release)
	if n := c.Wait(context.Background(), MethodIs("slow")); n != 0 {
		t.Errorf("Wait = %d", n)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":"done"}` + "\n" + `{"jsonrpc":"2.0","method":"after"}` + "\n"
	if got := out.String(); got != want {
		t.Errorf("wrote\n%s\nwant\n%s", got, want)
	}
	c.Close()
	if err := c.Notify("later", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Notify after Close = %v, want ErrClosed", err)
	}
	if out.String() != want {
		t.Errorf("wrote after Close: %s", out.String())
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeContext: a cancelled ctx ends Serve while the input stays open.
func TestServeContext(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	defer inW.Close()
	c := NewConn(inR, io.Discard, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Serve(ctx, (&echo{}).handle) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve = %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Serve ignored its context")
	}
}

// FuzzServe feeds arbitrary input to a Conn: it must never panic, hand
// the handler only requests and notifications with a method, and write
// only JSON-RPC responses, each with an id and one of result or error.
func FuzzServe(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}\n"))
	f.Add([]byte("not json\n[1]\n42\n{}\n"))
	f.Add([]byte(`{"id":"x","method":"echo","params":{"t":"` + strings.Repeat("z", 300) + "\"}}\n"))
	f.Add([]byte("{\"id\":1}\r\n\n\n{\"method\":\"m\"}"))
	f.Add([]byte(`{"method":"$/cancel_request","params":{"requestId":1}}` + "\n" + `{"id":5,"result":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out lockedBuffer
		c := NewConn(bytes.NewReader(data), &out, Options{MaxMessageBytes: 256})
		e := &echo{}
		if err := c.Serve(context.Background(), e.handle); err != nil {
			t.Fatalf("Serve = %v", err)
		}
		c.Wait(context.Background(), nil)
		c.Close()
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  *string         `json:"method"`
				Result  json.RawMessage `json:"result"`
				Error   *Error          `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" || len(m.ID) == 0 || m.Method != nil ||
				(m.Result == nil) == (m.Error == nil) || (m.Error != nil && m.Error.Message == "") {
				t.Fatalf("wrote %q", sc.Text())
			}
		}
	})
}

// TestCloseCancelsRequests: Close cancels the requests still being served
// (and Cancel those it selects), and their late answers are not written.
func TestCloseCancelsRequests(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	ended := make(chan string, 2)
	c := NewConn(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"a"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"b"}`+"\n"), &out, Options{})
	if err := c.Serve(context.Background(), func(ctx context.Context, req *Request) (any, error) {
		<-ctx.Done()
		ended <- req.Method
		return nil, ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	c.Cancel(MethodIs("a"))
	if m := <-ended; m != "a" {
		t.Errorf("Cancel(a) ended %s", m)
	}
	c.Wait(context.Background(), MethodIs("a"))
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"Request cancelled","data":{"error":"context canceled"}}}` + "\n"
	if got := out.String(); got != want {
		t.Errorf("after Cancel(a): %q, want %q", got, want)
	}
	c.Close()
	if m := <-ended; m != "b" {
		t.Errorf("Close ended %s", m)
	}
	c.Wait(context.Background(), nil)
	if got := out.String(); got != want {
		t.Errorf("written after Close: %q", strings.TrimPrefix(got, want))
	}
}
