package acpbridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/event"
)

// turnFunc plays one turn of a fake session: it appends the turn's events
// and sends deltas to live, as the agent loop would.
type turnFunc func(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error)

// fakeAgent is an in-memory Agent. Sessions survive Close, so a second
// connection can open them again (as a fresh process reopens a log).
type fakeAgent struct {
	mu       sync.Mutex
	sessions map[string]*fakeSession
	n        int
	turn     turnFunc // what every session's turns do
	listErr  error
}

func newFakeAgent(turn turnFunc) *fakeAgent {
	return &fakeAgent{sessions: map[string]*fakeSession{}, turn: turn}
}

func (h *fakeAgent) NewSession(_ context.Context, cwd string) (Session, error) {
	if cwd == "/missing" {
		return nil, fmt.Errorf("cwd %s is not a directory: %w", cwd, ErrInvalidCwd)
	}
	if cwd == "/nokey" {
		return nil, fmt.Errorf("no API key: set KEY: %w", ErrAuthRequired)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	s := &fakeSession{id: fmt.Sprintf("s%d", h.n), cwd: cwd, host: h, open: true,
		updated: time.Date(2026, 11, 29, 12, h.n, 0, 0, time.UTC)}
	h.sessions[s.id] = s
	return s, nil
}

func (h *fakeAgent) OpenSession(_ context.Context, id string) (Session, error) {
	if id == "nokey" {
		return nil, fmt.Errorf("no API key: set KEY: %w", ErrAuthRequired)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.sessions[id]
	if !ok {
		return nil, fmt.Errorf("open %s: %w", id, ErrSessionNotFound)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open {
		return nil, fmt.Errorf("session %s is locked by another process", id)
	}
	s.open, s.closed = true, false
	return s, nil
}

func (h *fakeAgent) ListSessions(context.Context) ([]SessionInfo, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []SessionInfo
	for _, s := range h.sessions {
		out = append(out, SessionInfo{ID: s.id, Cwd: s.cwd, Title: "title " + s.id, UpdatedAt: s.updated})
	}
	return out, h.listErr
}

// fakeSession is an in-memory session log with followers.
type fakeSession struct {
	id, cwd string
	host    *fakeAgent
	updated time.Time

	mu     sync.Mutex
	events []event.Event
	wake   chan struct{}
	open   bool
	closed bool
	turns  int // turns started
}

func (s *fakeSession) ID() string  { return s.id }
func (s *fakeSession) Cwd() string { return s.cwd }

func (s *fakeSession) Events() []event.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events[:len(s.events):len(s.events)]
}

func (s *fakeSession) Follow(ctx context.Context, from int64) iter.Seq[event.Event] {
	return func(yield func(event.Event) bool) {
		next := max(from, 0)
		for ctx.Err() == nil {
			s.mu.Lock()
			if next < int64(len(s.events)) {
				ev := s.events[next]
				s.mu.Unlock()
				if !yield(ev) {
					return
				}
				next++
				continue
			}
			if s.closed {
				s.mu.Unlock()
				return
			}
			if s.wake == nil {
				s.wake = make(chan struct{})
			}
			wake := s.wake
			s.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-wake:
			}
		}
	}
}

func (s *fakeSession) Prompt(ctx context.Context, prompt []event.Content, live Live) (event.Reason, error) {
	return s.host.turn(ctx, s, prompt, live)
}

func (s *fakeSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open, s.closed = false, true
	if s.wake != nil {
		close(s.wake)
		s.wake = nil
	}
	return nil
}

func (s *fakeSession) isOpen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// add appends events.
func (s *fakeSession) add(ps ...event.Payload) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range ps {
		data, err := event.Encode(p)
		if err != nil {
			panic(err)
		}
		s.events = append(s.events, event.Event{Seq: int64(len(s.events)), Time: time.Unix(0, 0), Type: p.EventType(), Data: data})
	}
	if s.wake != nil {
		close(s.wake)
		s.wake = nil
	}
}

// begin starts turn n+1 with the prompt and returns its number.
func (s *fakeSession) begin(prompt []event.Content) int {
	s.mu.Lock()
	s.turns++
	n := s.turns
	s.mu.Unlock()
	s.add(event.TurnStart{Turn: n}, event.UserMessage{Content: prompt})
	return n
}

// chatTurn answers with reasoning and text, streamed word by word.
func chatTurn(reasoning, text string) turnFunc {
	return func(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error) {
		n := s.begin(prompt)
		s.add(event.StepStart{Turn: n, Step: 1})
		for _, w := range strings.SplitAfter(reasoning, " ") {
			live.ReasoningDelta(s.id, w)
		}
		for _, w := range strings.SplitAfter(text, " ") {
			live.TextDelta(s.id, w)
		}
		s.add(event.AssistantMessage{Turn: n, Step: 1, Text: text, Reasoning: reasoning, Finish: "stop"},
			event.StepEnd{Turn: n, Step: 1}, event.TurnEnd{Turn: n, Reason: event.ReasonCompleted})
		return event.ReasonCompleted, nil
	}
}

// toolTurn plans with todo_write, runs bash, then answers.
func toolTurn(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error) {
	n := s.begin(prompt)
	s.add(event.StepStart{Turn: n, Step: 1})
	live.TextDelta(s.id, "Planning.")
	todo := `{"todos":[{"content":"Read","status":"in_progress"},{"content":"Fix","status":"pending"}]}`
	bash := `{"command":"go test ./...","description":"Run the tests"}`
	s.add(event.AssistantMessage{Turn: n, Step: 1, Text: "Planning.", Finish: "tool_calls", ToolCalls: []event.ToolCallRequest{
		{ID: "c1", Name: "todo_write", Arguments: todo}, {ID: "c2", Name: "bash", Arguments: bash}}},
		event.ToolCall{Turn: n, Step: 1, CallID: "c1", Name: "todo_write", Args: todo, Title: "Update todo list"},
		event.TodoWrite{Todos: []event.Todo{{Content: "Read", Status: event.TodoInProgress}, {Content: "Fix", Status: event.TodoPending}}},
		event.ToolResult{Turn: n, Step: 1, CallID: "c1", Content: "Updated todo list."},
		event.ToolCall{Turn: n, Step: 1, CallID: "c2", Name: "bash", Args: bash, Title: "go test ./...", Kind: "execute"},
		event.ToolResult{Turn: n, Step: 1, CallID: "c2", Content: "Error: exit status 1", IsError: true},
		event.StepEnd{Turn: n, Step: 1},
		event.StepStart{Turn: n, Step: 2})
	live.ReasoningDelta(s.id, "Tests fail.")
	live.TextDelta(s.id, "Done.")
	s.add(event.AssistantMessage{Turn: n, Step: 2, Text: "Done.", Reasoning: "Tests fail.", Finish: "stop"},
		event.StepEnd{Turn: n, Step: 2}, event.TurnEnd{Turn: n, Reason: event.ReasonCompleted})
	return event.ReasonCompleted, nil
}

// hangTurn streams a word, then runs a tool until ctx is done, and ends the
// turn cancelled, as the loop does. started is closed once it waits.
func hangTurn(started chan<- struct{}) turnFunc {
	var once sync.Once
	return func(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error) {
		n := s.begin(prompt)
		s.add(event.StepStart{Turn: n, Step: 1})
		live.TextDelta(s.id, "Working")
		s.add(event.AssistantMessage{Turn: n, Step: 1, Text: "Working", ToolCalls: []event.ToolCallRequest{{ID: "c1", Name: "bash", Arguments: `{"command":"sleep 60"}`}}},
			event.ToolCall{Turn: n, Step: 1, CallID: "c1", Name: "bash", Args: `{"command":"sleep 60"}`})
		once.Do(func() { close(started) })
		<-ctx.Done()
		s.add(event.ToolResult{Turn: n, Step: 1, CallID: "c1", Content: "Error: cancelled", IsError: true},
			event.StepEnd{Turn: n, Step: 1}, event.TurnEnd{Turn: n, Reason: event.ReasonCancelled})
		return event.ReasonCancelled, nil
	}
}

// wireMsg is one message the bridge wrote.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	raw string
}

// update is a session/update's params.
type update struct {
	SessionID string                     `json:"sessionId"`
	Update    map[string]json.RawMessage `json:"update"`
	raw       json.RawMessage
}

func (u update) kind() string {
	var k string
	json.Unmarshal(u.Update["sessionUpdate"], &k)
	return k
}

// text is the text of a chunk update.
func (u update) text() string {
	var c struct{ Text string }
	json.Unmarshal(u.Update["content"], &c)
	return c.Text
}

// client is a raw JSON-RPC client talking to Serve through pipes.
type client struct {
	t    *testing.T
	w    *io.PipeWriter
	done chan error // Serve's result

	closeOnce sync.Once
	serveErr  error
	returned  bool

	mu     sync.Mutex
	msgs   []wireMsg
	change chan struct{}
	nextID int
}

// serve runs Serve on a and returns a client for it. The connection ends
// (input closed) at the end of the test.
func serve(t *testing.T, a Agent, opts Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, w: inW, done: make(chan error, 1), change: make(chan struct{})}
	if opts.Logger == nil {
		tw := &testWriter{t: t}
		t.Cleanup(tw.stop) // runs after the cleanup below: Serve has returned
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: tw, Level: hclog.Debug})
	}
	go func() {
		err := Serve(context.Background(), a, inR, outW, opts)
		outW.Close()
		c.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m wireMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout line is not JSON-RPC: %q: %v", sc.Text(), err)
				continue
			}
			m.raw = sc.Text()
			c.mu.Lock()
			c.msgs = append(c.msgs, m)
			close(c.change)
			c.change = make(chan struct{})
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		if !c.close(5 * time.Second) {
			t.Error("Serve did not return within 5 s of the input closing")
		}
	})
	return c
}

// close ends the input and waits up to d for Serve to return; it reports
// whether it did. Serve's error is in c.serveErr.
func (c *client) close(d time.Duration) bool {
	c.closeOnce.Do(func() {
		c.w.Close()
		select {
		case c.serveErr = <-c.done:
			c.returned = true
		case <-time.After(d):
		}
	})
	return c.returned
}

// testWriter sends log lines to t.Log until the test ends (a request
// Serve gave up on may log after it returns).
type testWriter struct {
	t       *testing.T
	mu      sync.Mutex
	stopped bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *testWriter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
}

// send writes a request and returns its id.
func (c *client) send(method string, params any) int {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	c.raw(string(b))
	return id
}

// notify writes a notification.
func (c *client) notify(method string, params any) {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	c.raw(string(b))
}

// raw writes one line as is.
func (c *client) raw(line string) {
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("write to the bridge: %v", err)
	}
}

// wait returns the index of the first message from index from on that
// matches, waiting up to 5 s.
func (c *client) wait(from int, what string, match func(wireMsg) bool) int {
	c.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		c.mu.Lock()
		for i := from; i < len(c.msgs); i++ {
			if match(c.msgs[i]) {
				c.mu.Unlock()
				return i
			}
		}
		ch := c.change
		c.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			c.t.Fatalf("no %s within 5 s; the bridge wrote:\n%s", what, c.dump())
		}
	}
}

func (c *client) dump() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, m := range c.msgs {
		b.WriteString(m.raw + "\n")
	}
	return b.String()
}

// response waits for the response to request id and returns it with its
// index.
func (c *client) response(id int) (wireMsg, int) {
	c.t.Helper()
	want := fmt.Sprint(id)
	i := c.wait(0, "response to request "+want, func(m wireMsg) bool { return m.Method == "" && string(m.ID) == want })
	return c.at(i), i
}

func (c *client) at(i int) wireMsg {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.msgs[i]
}

// len returns the number of messages written so far.
func (c *client) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.msgs)
}

// call sends a request and waits for its result, failing on an error.
func (c *client) call(method string, params any, result any) {
	c.t.Helper()
	m, _ := c.response(c.send(method, params))
	if m.Error != nil {
		c.t.Fatalf("%s: error %d %s %s", method, m.Error.Code, m.Error.Message, m.Error.Data)
	}
	if result != nil {
		if err := json.Unmarshal(m.Result, result); err != nil {
			c.t.Fatalf("%s: result %s: %v", method, m.Result, err)
		}
	}
}

// updates returns the session/updates for session id among messages
// [from, to).
func (c *client) updates(id string, from, to int) []update {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	var ups []update
	for _, m := range c.msgs[from:to] {
		if m.Method != "session/update" {
			continue
		}
		var u update
		if err := json.Unmarshal(m.Params, &u); err != nil {
			c.t.Fatalf("session/update params %s: %v", m.Params, err)
		}
		u.raw = m.Params
		if u.SessionID == id {
			ups = append(ups, u)
		}
	}
	return ups
}

// initialize performs the handshake and opens a session in /work.
func (c *client) newSession() string {
	c.t.Helper()
	c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil)
	var r struct{ SessionID string }
	c.call("session/new", map[string]any{"cwd": "/work", "mcpServers": []any{}}, &r)
	if r.SessionID == "" {
		c.t.Fatal("session/new returned no sessionId")
	}
	return r.SessionID
}

// prompt sends a text prompt and returns the response and the updates of
// the session written before it.
func (c *client) prompt(id, text string) (wireMsg, []update) {
	c.t.Helper()
	from := c.len()
	m, i := c.response(c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": text}}}))
	return m, c.updates(id, from, i)
}

// stopReason is the stopReason of a prompt response, failing on an error.
func stopReason(t *testing.T, m wireMsg) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("prompt failed: %d %s %s", m.Error.Code, m.Error.Message, m.Error.Data)
	}
	var r struct{ StopReason string }
	json.Unmarshal(m.Result, &r)
	return r.StopReason
}

// coalesce joins adjacent chunks of one message, so that a live stream of
// deltas compares equal to its replay; it returns the updates as JSON.
func coalesce(ups []update) []string {
	var out []string
	var last map[string]any
	for _, u := range ups {
		var m map[string]any
		json.Unmarshal(u.raw, &m)
		up := m["update"].(map[string]any)
		k := up["sessionUpdate"].(string)
		if last != nil && strings.HasSuffix(k, "_chunk") && last["sessionUpdate"] == k && last["messageId"] == up["messageId"] {
			lc, uc := last["content"].(map[string]any), up["content"].(map[string]any)
			if lc["type"] == "text" && uc["type"] == "text" {
				lc["text"] = lc["text"].(string) + uc["text"].(string)
				b, _ := json.Marshal(last)
				out[len(out)-1] = string(b)
				continue
			}
		}
		b, _ := json.Marshal(up)
		out = append(out, string(b))
		last = up
	}
	return out
}
