package acpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/shorten"
)

func TestInitialize(t *testing.T) {
	t.Parallel()
	c := serve(t, newFakeAgent(chatTurn("", "hi")), Options{Version: "1.2.3"})
	// A client asking for another version still gets 1.
	m, _ := c.response(c.send("initialize", map[string]any{"protocolVersion": 7, "clientCapabilities": map[string]any{}}))
	want := `{"agentCapabilities":{"auth":{},"loadSession":true,"mcpCapabilities":{},"promptCapabilities":{"embeddedContext":true},` +
		`"sessionCapabilities":{"close":{},"list":{},"resume":{}}},"agentInfo":{"name":"harness","version":"1.2.3"},"authMethods":[],"protocolVersion":1}`
	if string(m.Result) != want {
		t.Errorf("initialize result:\n got %s\nwant %s", m.Result, want)
	}
}

// TestAuthMethods: each key variable is an agent-type auth method, and
// authenticate says whether the agent has the key.
func TestAuthMethods(t *testing.T) {
	t.Parallel()
	c := serve(t, newFakeAgent(chatTurn("", "hi")), Options{KeyVars: []KeyVar{
		{Var: "DEEPSEEK_API_KEY", Providers: []string{"deepseek"}, Missing: true},
		{Var: "OPENAI_API_KEY", Providers: []string{"openai", "openai-responses"}},
	}})
	var init struct {
		AuthMethods []struct {
			ID, Name, Description string
			Type                  *string
			Meta                  map[string]any `json:"_meta"`
		}
	}
	c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, &init)
	if n := len(init.AuthMethods); n != 2 {
		t.Fatalf("%d auth methods, want 2", n)
	}
	for i, v := range []string{"DEEPSEEK_API_KEY", "OPENAI_API_KEY"} {
		m := init.AuthMethods[i]
		if m.ID != "env:"+v || m.Name != v || m.Type != nil || m.Meta["envVar"] != v || !strings.Contains(m.Description, v+" (or HARNESS_API_KEY)") {
			t.Errorf("auth method %d = %+v", i, m)
		}
	}
	if !strings.Contains(init.AuthMethods[1].Description, "openai, openai-responses") {
		t.Errorf("description %q names no providers", init.AuthMethods[1].Description)
	}
	tests := []struct {
		method string
		code   int // 0: success
		msg    string
	}{
		{"env:DEEPSEEK_API_KEY", -32000, "Authentication required: DEEPSEEK_API_KEY is not set"},
		{"env:OPENAI_API_KEY", 0, ""},
		{"env:HOME", -32602, "unknown auth method"},
	}
	for _, tc := range tests {
		m, _ := c.response(c.send("authenticate", map[string]any{"methodId": tc.method}))
		switch {
		case tc.code == 0 && m.Error != nil:
			t.Errorf("authenticate %s: %s", tc.method, m.Error.Message)
		case tc.code != 0 && (m.Error == nil || m.Error.Code != tc.code || !strings.Contains(m.Error.Message, tc.msg)):
			t.Errorf("authenticate %s = %+v, want %d %q", tc.method, m.Error, tc.code, tc.msg)
		}
	}
}

func TestPromptStreamsBeforeTheResponse(t *testing.T) {
	t.Parallel()
	c := serve(t, newFakeAgent(chatTurn("let me think", "hello there world")), Options{})
	id := c.newSession()
	m, ups := c.prompt(id, "hi")
	if got := stopReason(t, m); got != "end_turn" {
		t.Errorf("stopReason = %q, want end_turn", got)
	}
	var kinds []string
	var thought, text string
	for _, u := range ups {
		kinds = append(kinds, u.kind())
		switch u.kind() {
		case kindThought:
			thought += u.text()
		case kindText:
			text += u.text()
		}
	}
	want := []string{kindThought, kindThought, kindThought, kindText, kindText, kindText}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("update kinds (-want +got):\n%s", diff)
	}
	if thought != "let me think" || text != "hello there world" {
		t.Errorf("streamed thought %q, text %q", thought, text)
	}
	// Nothing for the session after the response.
	time.Sleep(20 * time.Millisecond)
	if n := len(c.updates(id, 0, c.len())); n != len(ups) {
		t.Errorf("%d updates in all, %d before the response", n, len(ups))
	}
}

// toolTurnUpdates is what toolTurn shows live, message ids left out.
var toolTurnUpdates = []string{
	`{"content":{"text":"Planning.","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
	`{"kind":"other","rawInput":{"todos":[{"content":"Read","status":"in_progress"},{"content":"Fix","status":"pending"}]},"sessionUpdate":"tool_call","status":"pending","title":"Update todo list","toolCallId":"c1"}`,
	`{"sessionUpdate":"tool_call_update","status":"in_progress","toolCallId":"c1"}`,
	`{"entries":[{"content":"Read","priority":"medium","status":"in_progress"},{"content":"Fix","priority":"medium","status":"pending"}],"sessionUpdate":"plan"}`,
	`{"content":[{"content":{"text":"Updated todo list.","type":"text"},"type":"content"}],"rawOutput":{"content":"Updated todo list."},"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c1"}`,
	`{"kind":"execute","rawInput":{"command":"go test ./...","description":"Run the tests"},"sessionUpdate":"tool_call","status":"pending","title":"go test ./...","toolCallId":"c2"}`,
	`{"sessionUpdate":"tool_call_update","status":"in_progress","toolCallId":"c2"}`,
	`{"content":[{"content":{"text":"Error: exit status 1","type":"text"},"type":"content"}],"rawOutput":{"content":"Error: exit status 1","isError":true},"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"c2"}`,
	`{"content":{"text":"Tests fail.","type":"text"},"sessionUpdate":"agent_thought_chunk"}`,
	`{"content":{"text":"Done.","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
}

// withoutMessageIDs drops messageId from coalesced updates.
func withoutMessageIDs(t *testing.T, ups []string) []string {
	t.Helper()
	out := make([]string, len(ups))
	for i, u := range ups {
		var m map[string]any
		if err := json.Unmarshal([]byte(u), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "messageId")
		b, _ := json.Marshal(m)
		out[i] = string(b)
	}
	return out
}

func TestToolCallsAndPlan(t *testing.T) {
	t.Parallel()
	c := serve(t, newFakeAgent(toolTurn), Options{})
	id := c.newSession()
	m, ups := c.prompt(id, "fix it")
	if got := stopReason(t, m); got != "end_turn" {
		t.Errorf("stopReason = %q", got)
	}
	if diff := cmp.Diff(toolTurnUpdates, withoutMessageIDs(t, coalesce(ups))); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
}

// TestLoadReplaysTheLiveTranscript runs turns on one connection and loads
// the session on another: the replay is the live transcript, user
// messages included, once the chunks of each message are joined.
func TestLoadReplaysTheLiveTranscript(t *testing.T) {
	t.Parallel()
	h := newFakeAgent(toolTurn)
	c1 := serve(t, h, Options{})
	id := c1.newSession()
	_, live1 := c1.prompt(id, "fix it")
	h.mu.Lock()
	h.turn = chatTurn("one more thought", "and a longer answer")
	h.mu.Unlock()
	_, live2 := c1.prompt(id, "more")
	c1.close(5 * time.Second)
	if h.sessions[id].isOpen() {
		t.Fatal("the session is still open after the connection ended")
	}

	c2 := serve(t, h, Options{})
	c2.call("initialize", map[string]any{"protocolVersion": 1}, nil)
	from := c2.len()
	m, i := c2.response(c2.send("session/load", map[string]any{"sessionId": id, "cwd": "/work", "mcpServers": []any{}}))
	if m.Error != nil || string(m.Result) != "{}" {
		t.Fatalf("session/load answered %s", m.raw)
	}
	replay := coalesce(c2.updates(id, from, i))

	user := func(turn int, text string) string {
		tr := translator{sessionID: id}
		return fmt.Sprintf(`{"content":{"text":%q,"type":"text"},"messageId":%q,"sessionUpdate":"user_message_chunk"}`, text, tr.messageID(kindUser, turn, 0))
	}
	want := append(append(append([]string{user(1, "fix it")}, coalesce(live1)...), user(2, "more")), coalesce(live2)...)
	if diff := cmp.Diff(want, replay); diff != "" {
		t.Errorf("replay (-live +replay):\n%s", diff)
	}

	// The loaded session goes on.
	if m, _ := c2.prompt(id, "again"); stopReason(t, m) != "end_turn" {
		t.Errorf("prompt after load: %s", m.raw)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	c := serve(t, newFakeAgent(hangTurn(started)), Options{})
	id := c.newSession()
	from := c.len()
	pid := c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	<-started
	c.notify("session/cancel", map[string]any{"sessionId": id})
	m, i := c.response(pid)
	if got := stopReason(t, m); got != "cancelled" {
		t.Fatalf("stopReason = %q, want cancelled", got)
	}
	// The final update (the tool call failed) went out before the response.
	ups := c.updates(id, from, i)
	last := ups[len(ups)-1]
	if last.kind() != "tool_call_update" || !strings.Contains(string(last.raw), `"status":"failed"`) {
		t.Errorf("last update before the response: %s", last.raw)
	}
}

func TestSecondPromptSupersedesTheFirst(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	h := newFakeAgent(hangTurn(started))
	c := serve(t, h, Options{})
	id := c.newSession()
	first := c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "one"}}})
	<-started
	h.mu.Lock()
	h.turn = chatTurn("", "two")
	h.mu.Unlock()
	second := c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "two"}}})
	if m, _ := c.response(first); stopReason(t, m) != "cancelled" {
		t.Errorf("first prompt: %s", m.raw)
	}
	if m, _ := c.response(second); stopReason(t, m) != "end_turn" {
		t.Errorf("second prompt: %s", m.raw)
	}
}

func TestStopReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason event.Reason
		err    error
		want   string // stopReason, or "error <code> <message>"
	}{
		{event.ReasonCompleted, nil, "end_turn"},
		{event.ReasonMaxSteps, nil, "max_turn_requests"},
		{event.ReasonMaxTokens, nil, "max_tokens"},
		{event.ReasonRefusal, nil, "refusal"},
		{event.ReasonCancelled, nil, "cancelled"},
		{event.ReasonInterrupted, nil, "cancelled"},
		{event.ReasonError, errors.New("deepseek: rate limited\n(retry later)"), "error -32603 turn failed: deepseek: rate limited (retry later)"},
	}
	for _, tc := range tests {
		t.Run(string(tc.reason), func(t *testing.T) {
			t.Parallel()
			c := serve(t, newFakeAgent(func(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error) {
				n := s.begin(prompt)
				s.add(event.TurnEnd{Turn: n, Reason: tc.reason})
				return tc.reason, tc.err
			}), Options{})
			id := c.newSession()
			m, _ := c.prompt(id, "go")
			got := ""
			if m.Error != nil {
				got = fmt.Sprintf("error %d %s", m.Error.Code, m.Error.Message)
				var data map[string]string
				json.Unmarshal(m.Error.Data, &data)
				if data["reason"] != "error" || data["sessionId"] != id {
					t.Errorf("error data = %s", m.Error.Data)
				}
			} else {
				got = stopReason(t, m)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestUnknownSession(t *testing.T) {
	t.Parallel()
	c := serve(t, newFakeAgent(chatTurn("", "hi")), Options{})
	c.call("initialize", map[string]any{"protocolVersion": 1}, nil)
	const ghost = "20991231T000000-deadbeef"
	tests := map[string]map[string]any{
		"session/prompt": {"sessionId": ghost, "prompt": []any{map[string]any{"type": "text", "text": "hi"}}},
		"session/load":   {"sessionId": ghost, "cwd": "/work", "mcpServers": []any{}},
		"session/resume": {"sessionId": ghost, "cwd": "/work"},
		"session/close":  {"sessionId": ghost},
	}
	for method, params := range tests {
		m, _ := c.response(c.send(method, params))
		if m.Error == nil || m.Error.Code != -32002 || !strings.Contains(string(m.Error.Data), `"sessionId":"`+ghost+`"`) {
			t.Errorf("%s answered %s, want error -32002 with data.sessionId", method, m.raw)
		}
	}
	// session/cancel is a notification: no answer, no harm.
	c.notify("session/cancel", map[string]any{"sessionId": ghost})
	c.newSession()
}

func TestBadInputKeepsTheConnection(t *testing.T) {
	t.Parallel()
	c := serve(t, newFakeAgent(chatTurn("", "still here")), Options{MaxMessageBytes: 1 << 20})
	id := c.newSession()
	tests := []struct {
		line string
		id   string // of the answer
		code int
		msg  string
	}{
		{"this is not json", "null", -32700, "Parse error"},
		{`{"jsonrpc":"2.0","id":9,"method":`, "null", -32700, "Parse error"},
		{`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, "null", -32600, "batches are not supported"},
		{`42`, "null", -32600, "must be a JSON object"},
		{`{"jsonrpc":"2.0"}`, "null", -32600, "needs a method or an id"},
		{`{"jsonrpc":"2.0","id":"u1","method":"no/such"}`, `"u1"`, -32601, "Method not found"},
		{`{"jsonrpc":"2.0","id":"p1","method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"image","data":"%%%","mimeType":"image/png"}]}}`, `"p1"`, -32602, "not base64"},
		{`{"jsonrpc":"2.0","id":"n1","method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`, `"n1"`, -32602, "not an absolute path"},
		{`{"jsonrpc":"2.0","id":"n2","method":"session/new","params":{"cwd":"/missing","mcpServers":[]}}`, `"n2"`, -32602, "/missing is not a directory"},
		{`{"jsonrpc":"2.0","id":"k1","method":"session/new","params":{"cwd":"/nokey","mcpServers":[]}}`, `"k1"`, -32000, "Authentication required: no API key: set KEY"},
		{`{"jsonrpc":"2.0","id":"k2","method":"session/load","params":{"sessionId":"nokey","cwd":"/","mcpServers":[]}}`, `"k2"`, -32000, "Authentication required: no API key: set KEY"},
		{`{"jsonrpc":"2.0","id":"k3","method":"session/resume","params":{"sessionId":"nokey","cwd":"/"}}`, `"k3"`, -32000, "Authentication required: no API key: set KEY"},
		{`{"jsonrpc":"2.0","id":"big","method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"text","text":"` + strings.Repeat("x", 2<<20) + `"}]}}`, `"big"`, -32600, "over the limit of 1048576 bytes"},
		{`{"jsonrpc":"2.0","method":"session/prompt","params":{"text":"` + strings.Repeat("y", 2<<20) + `"},"id":7}`, "null", -32600, "over the limit"},
	}
	for _, tc := range tests {
		from := c.len()
		c.raw(tc.line)
		i := c.wait(from, "answer to "+shorten.Bytes(tc.line, 120), func(m wireMsg) bool { return m.Method == "" && m.Error != nil })
		m := c.at(i)
		if string(m.ID) != tc.id || m.Error.Code != tc.code || !strings.Contains(m.Error.Message, tc.msg) {
			t.Errorf("%s\nanswered %s\nwant id %s, code %d, message containing %q", shorten.Bytes(tc.line, 120), shorten.Bytes(m.raw, 120), tc.id, tc.code, tc.msg)
		}
	}
	if m, ups := c.prompt(id, "are you there?"); stopReason(t, m) != "end_turn" || len(ups) == 0 {
		t.Errorf("prompt after bad input: %s, %d updates", m.raw, len(ups))
	}
}

func TestSeveralSessionsAtOnce(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	h := newFakeAgent(hangTurn(started))
	c := serve(t, h, Options{})
	a := c.newSession()
	var b struct{ SessionID string }
	c.call("session/new", map[string]any{"cwd": "/work/b", "mcpServers": []any{}}, &b)
	pa := c.send("session/prompt", map[string]any{"sessionId": a, "prompt": []any{map[string]any{"type": "text", "text": "slow"}}})
	<-started
	h.mu.Lock()
	h.turn = chatTurn("", "quick answer")
	h.mu.Unlock()
	m, ups := c.prompt(b.SessionID, "fast")
	if stopReason(t, m) != "end_turn" || len(ups) == 0 {
		t.Errorf("session b: %s with %d updates while a runs", m.raw, len(ups))
	}
	c.notify("session/cancel", map[string]any{"sessionId": a})
	if m, _ := c.response(pa); stopReason(t, m) != "cancelled" {
		t.Errorf("session a: %s", m.raw)
	}
}

func TestCloseSession(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	h := newFakeAgent(hangTurn(started))
	c := serve(t, h, Options{})
	id := c.newSession()
	pid := c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	<-started
	cm, _ := c.response(c.send("session/close", map[string]any{"sessionId": id}))
	if cm.Error != nil {
		t.Fatalf("session/close: %s", cm.raw)
	}
	// The prompt answers cancelled; its response and the close's are
	// written by different goroutines of the connection, in either order.
	pm, _ := c.response(pid)
	if stopReason(t, pm) != "cancelled" {
		t.Errorf("the prompt answered %s, want cancelled", pm.raw)
	}
	if h.sessions[id].isOpen() {
		t.Error("the session is still open")
	}
	if m, _ := c.prompt(id, "again"); m.Error == nil || m.Error.Code != -32002 {
		t.Errorf("prompt after close: %s", m.raw)
	}
	// It can be resumed.
	c.call("session/resume", map[string]any{"sessionId": id, "cwd": "/work"}, nil)
	h.mu.Lock()
	h.turn = chatTurn("", "back")
	h.mu.Unlock()
	if m, _ := c.prompt(id, "again"); stopReason(t, m) != "end_turn" {
		t.Errorf("prompt after resume: %s", m.raw)
	}
}

func TestListSessions(t *testing.T) {
	t.Parallel()
	h := newFakeAgent(chatTurn("", "hi"))
	c := serve(t, h, Options{})
	c.newSession() // in /work
	c.call("session/new", map[string]any{"cwd": "/elsewhere", "mcpServers": []any{}}, nil)
	var r struct {
		Sessions []struct {
			SessionID, Cwd, Title, UpdatedAt string
		}
	}
	c.call("session/list", map[string]any{"cwd": "/work/"}, &r)
	if len(r.Sessions) != 1 || r.Sessions[0].SessionID != "s1" || r.Sessions[0].Cwd != "/work" ||
		r.Sessions[0].Title != "title s1" || r.Sessions[0].UpdatedAt != "2026-11-29T12:01:00Z" {
		t.Errorf("list in /work = %+v", r.Sessions)
	}
	c.call("session/list", map[string]any{}, &r)
	if len(r.Sessions) != 2 {
		t.Errorf("list = %+v, want both sessions", r.Sessions)
	}
	h.mu.Lock()
	h.listErr = errors.New("disk on fire")
	h.mu.Unlock()
	if m, _ := c.response(c.send("session/list", map[string]any{})); m.Error == nil || !strings.Contains(m.Error.Message, "disk on fire") {
		t.Errorf("failed list answered %s", m.raw)
	}
}

func TestPromptContent(t *testing.T) {
	t.Parallel()
	got := make(chan []event.Content, 1)
	c := serve(t, newFakeAgent(func(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error) {
		got <- prompt
		n := s.begin(prompt)
		s.add(event.TurnEnd{Turn: n, Reason: event.ReasonCompleted})
		return event.ReasonCompleted, nil
	}), Options{})
	id := c.newSession()
	blocks := []any{
		map[string]any{"type": "text", "text": "look at"},
		map[string]any{"type": "resource_link", "uri": "file:///work/a.go", "name": "a.go", "mimeType": "text/x-go"},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///work/b.go", "text": "package b\n"}},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///work/logo.png", "blob": "AA==", "mimeType": "image/png"}},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///work/notes/"}},
	}
	m, _ := c.response(c.send("session/prompt", map[string]any{"sessionId": id, "prompt": blocks}))
	if stopReason(t, m) != "end_turn" {
		t.Fatal(m.raw)
	}
	want := []event.Content{
		{Type: event.ContentText, Text: "look at"},
		{Type: event.ContentResourceLink, URI: "file:///work/a.go", Name: "a.go", MimeType: "text/x-go"},
		{Type: event.ContentResource, URI: "file:///work/b.go", Text: "package b\n"},
		{Type: event.ContentResourceLink, URI: "file:///work/logo.png", Name: "logo.png", MimeType: "image/png"},
		{Type: event.ContentResourceLink, URI: "file:///work/notes/", Name: "notes"},
	}
	if diff := cmp.Diff(want, <-got); diff != "" {
		t.Errorf("prompt content (-want +got):\n%s", diff)
	}
	// Replayed, the blocks come back as the client sent them (the blob as
	// a link).
	c.call("session/close", map[string]any{"sessionId": id}, nil)
	from := c.len()
	_, i := c.response(c.send("session/load", map[string]any{"sessionId": id, "cwd": "/work", "mcpServers": []any{}}))
	var contents []string
	for _, u := range c.updates(id, from, i) {
		contents = append(contents, string(u.Update["content"]))
	}
	wantJSON := []string{
		`{"text":"look at","type":"text"}`,
		`{"mimeType":"text/x-go","name":"a.go","type":"resource_link","uri":"file:///work/a.go"}`,
		`{"resource":{"text":"package b\n","uri":"file:///work/b.go"},"type":"resource"}`,
		`{"mimeType":"image/png","name":"logo.png","type":"resource_link","uri":"file:///work/logo.png"}`,
		`{"name":"notes","type":"resource_link","uri":"file:///work/notes/"}`,
	}
	if diff := cmp.Diff(wantJSON, contents); diff != "" {
		t.Errorf("replayed user message (-want +got):\n%s", diff)
	}
}

// TestInputEndStopsTurns closes the input while a turn runs: Serve cancels
// it, lets it log its end, closes the session and returns within the
// grace period.
func TestInputEndStopsTurns(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	h := newFakeAgent(hangTurn(started))
	c := serve(t, h, Options{})
	id := c.newSession()
	c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	<-started
	start := time.Now()
	if !c.close(2 * time.Second) {
		t.Fatal("Serve still running 2 s after the input ended")
	}
	if c.serveErr != nil {
		t.Errorf("Serve: %v", c.serveErr)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Serve took %v to return", d)
	}
	s := h.sessions[id]
	if s.isOpen() {
		t.Error("session still open")
	}
	evs := s.Events()
	if last := evs[len(evs)-1]; last.Type != event.TypeTurnEnd || !strings.Contains(string(last.Data), "cancelled") {
		t.Errorf("last event %s %s, want turn/end cancelled", last.Type, last.Data)
	}
}

// TestShutdownGrace: a turn that ignores cancellation does not hold Serve
// past the grace period.
func TestShutdownGrace(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	h := newFakeAgent(func(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error) {
		close(started)
		<-release
		return event.ReasonCancelled, nil
	})
	c := serve(t, h, Options{ShutdownGrace: 50 * time.Millisecond})
	id := c.newSession()
	c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	<-started
	if !c.close(2 * time.Second) {
		t.Fatal("Serve waited for a stuck turn")
	}
	if h.sessions[id].isOpen() {
		t.Error("session still open")
	}
}

// TestServeContext: cancelling Serve's context ends it even while the
// input stays open.
func TestServeContext(t *testing.T) {
	t.Parallel()
	h := newFakeAgent(chatTurn("", "hi"))
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, h, inR, io.Discard, Options{}) }()
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Serve ignored its context")
	}
}

// TestPromptRefusesUnknownBlocks: a prompt block harness does not take —
// an image that is not one, audio, a type it does not know, a block without
// a type — is answered -32602 naming the block, and no turn runs (the SDK
// decodes an unknown block as text, which became an empty message).
func TestPromptRefusesUnknownBlocks(t *testing.T) {
	t.Parallel()
	ran := make(chan []event.Content, 10)
	c := serve(t, newFakeAgent(func(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error) {
		ran <- prompt
		n := s.begin(prompt)
		s.add(event.TurnEnd{Turn: n, Reason: event.ReasonCompleted})
		return event.ReasonCompleted, nil
	}), Options{})
	id := c.newSession()
	tests := map[string]struct {
		block any
		msg   string
	}{
		"unknown type":       {map[string]any{"type": "video", "uri": "file:///v.mp4"}, `block 1 has type "video"`},
		"unknown with text":  {map[string]any{"type": "markdown", "text": "# hi"}, `block 1 has type "markdown"`},
		"wrong case":         {map[string]any{"type": "Text", "text": "hi"}, `block 1 has type "Text"`},
		"no type":            {map[string]any{"text": "hi"}, "block 1 has no type"},
		"image not an image": {map[string]any{"type": "image", "data": "AA==", "mimeType": "text/html"}, `block 1 is an image of type "text/html"`},
		"image not base64":   {map[string]any{"type": "image", "data": "A", "mimeType": "image/png"}, "block 1 is an image whose data is not base64"},
		"image without data": {map[string]any{"type": "image", "data": "", "mimeType": "image/png"}, "block 1 is an image without data"},
		"audio":              {map[string]any{"type": "audio", "data": "AA==", "mimeType": "audio/wav"}, "block 1 is audio"},
	}
	for name, tc := range tests {
		blocks := []any{map[string]any{"type": "text", "text": "look at"}, tc.block}
		m, _ := c.response(c.send("session/prompt", map[string]any{"sessionId": id, "prompt": blocks}))
		if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, tc.msg) {
			t.Errorf("%s: answered %s, want -32602 with %q", name, m.raw, tc.msg)
		}
	}
	select {
	case p := <-ran:
		t.Errorf("a refused prompt ran a turn with %v", p)
	default:
	}
	// What is supported still runs.
	if m, _ := c.prompt(id, "still fine?"); stopReason(t, m) != "end_turn" {
		t.Errorf("a text prompt after the refusals: %s", m.raw)
	}
}

// slowAgent opens sessions slowly, ignoring cancellation, as a session/new
// that starts plugins and creates a log can.
type slowAgent struct {
	*fakeAgent
	delay time.Duration
}

func (a slowAgent) NewSession(_ context.Context, cwd string) (Session, error) {
	time.Sleep(a.delay)
	return a.fakeAgent.NewSession(context.Background(), cwd)
}

// TestAnswersAfterInputEnds: a client that sends its requests and closes
// its end at once (`printf … | harness acp`) still gets every answer: the
// slow session/new's and the running prompt's (cancelled), before Serve
// returns.
func TestAnswersAfterInputEnds(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	fa := newFakeAgent(hangTurn(started))
	c := serve(t, slowAgent{fakeAgent: fa, delay: 300 * time.Millisecond}, Options{})
	id := c.newSession()
	pid := c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	<-started
	nid := c.send("session/new", map[string]any{"cwd": "/work", "mcpServers": []any{}})
	if !c.close(10 * time.Second) {
		t.Fatal("Serve did not return within 10 s of the input closing")
	}
	if m, _ := c.response(nid); m.Error != nil || !strings.Contains(string(m.Result), `"sessionId"`) {
		t.Errorf("session/new sent just before the input ended: %s", m.raw)
	}
	if m, _ := c.response(pid); stopReason(t, m) != "cancelled" {
		t.Errorf("prompt running when the input ended: %s", m.raw)
	}
}
