package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/anthropic/anthropictest"
)

// testKey must never show in an error or a log line.
const testKey = "sk-ant-test-0123456789abcdef"

// reply is one scripted answer of the fake Messages API.
type reply struct {
	status int
	header map[string]string
	file   string // a testdata SSE file
	body   string // sent as is when file is empty
	block  bool   // hold the response open until the request ends
}

// server is the recording fake (anthropictest) expecting testKey.
type server struct {
	*anthropictest.Server
}

func newServer(t *testing.T, replies ...reply) *server {
	t.Helper()
	var rs []anthropictest.Reply
	for _, r := range replies {
		data := []byte(r.body)
		if r.file != "" {
			var err error
			if data, err = os.ReadFile(filepath.Join("testdata", r.file)); err != nil {
				t.Fatal(err)
			}
		}
		rs = append(rs, anthropictest.Reply{Status: r.status, Header: r.header, Body: data, Block: r.block})
	}
	return &server{anthropictest.New(t, testKey, rs...)}
}

func (s *server) request(i int) map[string]any { return s.Request(i) }

func newProvider(t *testing.T, base string, logs io.Writer) *Provider {
	t.Helper()
	if logs == nil {
		logs = io.Discard
	}
	p, err := New(Config{BaseURL: base, APIKey: testKey, KeyHint: "check " + KeyEnv,
		RetryBase: time.Millisecond, RetryMax: 50 * time.Millisecond,
		Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// collect runs the stream to its end.
func collect(ctx context.Context, p *Provider, req llm.Request) ([]llm.Chunk, llm.Response, error) {
	var cs []llm.Chunk
	var asm llm.Assembler
	for c, err := range p.Stream(ctx, req) {
		if err != nil {
			return cs, asm.Response(), err
		}
		cs = append(cs, c)
		asm.Add(c)
	}
	return cs, asm.Response(), nil
}

var simple = llm.Request{System: "be brief", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}

func TestStream(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		want llm.Response
	}{
		{"text", "text.sse", llm.Response{Text: "Hello there.", Finish: llm.FinishStop,
			Usage: &llm.Usage{InputTokens: 25, OutputTokens: 15}}},
		{"thinking and tool call with streamed arguments", "thinking_tool.sse", llm.Response{
			Text:      "Adding it.",
			Reasoning: "The user wants a plan. I should add a todo.",
			Blocks: []llm.Block{{Provider: "anthropic", Model: DefaultModel, Type: "thinking", Text: "The user wants a plan. I should add a todo.",
				Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+sig=="}},
			ToolCalls: []llm.ToolCall{{ID: "toolu_01A", Name: "todo_write",
				Arguments: `{"todos": [{"content": "write tests", "status": "pending"}]}`}},
			Finish: llm.FinishToolCalls,
			Usage:  &llm.Usage{InputTokens: 472, OutputTokens: 89, CacheWriteTokens: 2048}}},
		{"redacted thinking and cache read", "redacted.sse", llm.Response{
			Text: "Done.", Reasoning: "Fine.",
			Blocks: []llm.Block{
				{Provider: "anthropic", Model: DefaultModel, Type: "redacted_thinking", Data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"},
				{Provider: "anthropic", Model: DefaultModel, Type: "thinking", Text: "Fine.", Signature: "sig-2"}},
			Finish: llm.FinishStop,
			Usage:  &llm.Usage{InputTokens: 12, OutputTokens: 7, CacheReadTokens: 3000, CacheWriteTokens: 150}}},
		{"tool call without arguments cut by max_tokens", "max_tokens.sse", llm.Response{
			ToolCalls: []llm.ToolCall{{ID: "toolu_02", Name: "list", Arguments: "{}"}},
			Finish:    llm.FinishMaxTokens, Usage: &llm.Usage{InputTokens: 5, OutputTokens: 4096}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, reply{file: tc.file})
			cs, got, err := collect(t.Context(), newProvider(t, s.URL, nil), simple)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("response (-want +got):\n%s", d)
			}
			// The contract: usage then finish, the finish last.
			if n := len(cs); n < 2 || cs[n-1].Kind != llm.ChunkFinish || cs[n-2].Kind != llm.ChunkUsage {
				t.Errorf("stream does not end with usage, finish: %+v", cs)
			}
		})
	}
}

// TestRequestRoundTrip checks the second request of a tool-calling step:
// the thinking block comes back unchanged with its signature, before the
// text and the tool_use; the tool result follows in a user message; cache
// breakpoints sit on the system prompt, the last tool and the last message.
func TestRequestRoundTrip(t *testing.T) {
	s := newServer(t, reply{file: "thinking_tool.sse"}, reply{file: "text.sse"})
	p := newProvider(t, s.URL, nil)
	tools := []llm.ToolSpec{
		{Name: "read", Description: "read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
		{Name: "todo_write", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
	req := llm.Request{System: "you are harness", Tools: tools, Messages: []llm.Message{{Role: llm.RoleUser, Text: "plan it"}}}
	_, first, err := collect(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, Text: first.Text, Reasoning: first.Reasoning, Blocks: first.Blocks, ToolCalls: first.ToolCalls},
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_01A", Text: "1 todo"},
	)
	if _, _, err := collect(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	if h := s.Header(1); h.Get("X-Api-Key") != testKey || h.Get("Authorization") != "" {
		t.Errorf("x-api-key = %q, Authorization = %q: want the key in x-api-key only", h.Get("X-Api-Key"), h.Get("Authorization"))
	}
	got := s.request(1)
	want := map[string]any{
		"model":      DefaultModel,
		"max_tokens": float64(DefaultMaxTokens),
		"stream":     true,
		"system":     []any{map[string]any{"type": "text", "text": "you are harness", "cache_control": map[string]any{"type": "ephemeral"}}},
		"tools": []any{
			map[string]any{"name": "read", "description": "read a file", "input_schema": map[string]any{
				"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}},
				"required": []any{"path"}, "additionalProperties": false}},
			map[string]any{"name": "todo_write", "input_schema": map[string]any{"type": "object", "properties": map[string]any{}},
				"cache_control": map[string]any{"type": "ephemeral"}},
		},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "plan it",
				"cache_control": map[string]any{"type": "ephemeral"}}}},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "thinking", "thinking": "The user wants a plan. I should add a todo.",
					"signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+sig=="},
				map[string]any{"type": "text", "text": "Adding it."},
				map[string]any{"type": "tool_use", "id": "toolu_01A", "name": "todo_write",
					"input": map[string]any{"todos": []any{map[string]any{"content": "write tests", "status": "pending"}}}},
			}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_01A",
				"content":       []any{map[string]any{"type": "text", "text": "1 todo"}},
				"cache_control": map[string]any{"type": "ephemeral"}}}},
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("second request (-want +got):\n%s", d)
	}
}

// TestOtherProvidersBlocksDropped: a reasoning text without an anthropic
// block (another provider's) is not sent, nor is another model's thinking;
// redacted thinking of this model goes back as is.
func TestOtherProvidersBlocksDropped(t *testing.T) {
	s := newServer(t, reply{file: "text.sse"})
	p := newProvider(t, s.URL, nil)
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "a"},
		{Role: llm.RoleAssistant, Text: "b", Reasoning: "deepseek thoughts",
			Blocks: []llm.Block{{Provider: "openai-responses", Type: "reasoning", Data: "enc"},
				{Provider: "anthropic", Model: "claude-opus-4-8", Type: "thinking", Text: "other model", Signature: "s"},
				{Provider: "anthropic", Model: DefaultModel, Type: "redacted_thinking", Data: "opaque"}}},
		{Role: llm.RoleUser, Text: "c"},
	}}
	if _, _, err := collect(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	msgs := s.request(0)["messages"].([]any)
	asst := msgs[1].(map[string]any)["content"].([]any)
	want := []any{map[string]any{"type": "redacted_thinking", "data": "opaque"}, map[string]any{"type": "text", "text": "b"}}
	if d := cmp.Diff(want, asst); d != "" {
		t.Errorf("assistant content (-want +got):\n%s", d)
	}
	// Breakpoints: the last message and the user message before the last answer.
	for i, wantCC := range []bool{true, false, true} {
		content := msgs[i].(map[string]any)["content"].([]any)
		_, has := content[len(content)-1].(map[string]any)["cache_control"]
		if has != wantCC {
			t.Errorf("message %d: cache_control %v, want %v", i, has, wantCC)
		}
	}
}

func TestThinkingConfig(t *testing.T) {
	s := newServer(t, reply{file: "text.sse"})
	p, err := New(Config{BaseURL: s.URL + "/v1/", APIKey: testKey, ThinkingBudget: 40000, MaxTokens: 8000})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := collect(t.Context(), p, simple); err != nil {
		t.Fatal(err) // the server checks the path: a trailing /v1 is dropped
	}
	got := s.request(0)
	if d := cmp.Diff(map[string]any{"type": "enabled", "budget_tokens": float64(40000)}, got["thinking"]); d != "" {
		t.Errorf("thinking (-want +got):\n%s", d)
	}
	if mt := got["max_tokens"].(float64); mt <= 40000 {
		t.Errorf("max_tokens %v is not above the thinking budget", mt)
	}
}

const authBody = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011"}`

func TestErrors(t *testing.T) {
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	server500 := `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`
	for _, tc := range []struct {
		name      string
		replies   []reply
		kind      llm.ErrorKind
		status    int
		contains  string
		requests  int
		retryLogs int
	}{
		{"401 names the key variable", []reply{{status: 401, body: authBody}}, llm.ErrAuth, 401, "the API key was refused; check ANTHROPIC_API_KEY", 1, 0},
		{"403", []reply{{status: 403, body: `{"type":"error","error":{"type":"permission_error","message":"no access to model"}}`}}, llm.ErrAuth, 403, "lacks access: no access to model", 1, 0},
		{"billing", []reply{{status: 400, body: `{"type":"error","error":{"type":"billing_error","message":"credit balance too low"}}`}}, llm.ErrAuth, 400, "credit balance too low; check the account's credit", 1, 0},
		{"404 names the model", []reply{{status: 404, body: `{"type":"error","error":{"type":"not_found_error","message":"model: nope"}}`}}, llm.ErrNotFound, 404, `model "claude-sonnet-5-5"`, 1, 0},
		{"context too long is not retried", []reply{{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`}},
			llm.ErrContextLength, 400, "does not fit the model's context window: prompt is too long", 1, 0},
		{"400 keeps the server's message", []reply{{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: bad"}}`}}, llm.ErrBadRequest, 400, "refused: messages.1: bad", 1, 0},
		{"429 retried", []reply{{status: 429, header: map[string]string{"Retry-After": "0"}, body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`}, {file: "text.sse"}}, "", 0, "", 2, 1},
		{"529 overloaded retried", []reply{{status: 529, body: overloaded}, {status: 529, body: overloaded}, {file: "text.sse"}}, "", 0, "", 3, 2},
		{"overloaded event before any chunk retried", []reply{{file: "overloaded_midstream.sse"}, {file: "text.sse"}}, "", 0, "", 2, 1},
		{"500 until retries run out", []reply{{status: 500, body: server500}, {status: 500, body: server500}, {status: 500, body: server500}, {status: 500, body: server500}},
			llm.ErrServer, 500, "server error: Internal server error", 4, 3},
		{"529 until retries run out", []reply{{status: 529, body: overloaded}, {status: 529, body: overloaded}, {status: 529, body: overloaded}, {status: 529, body: overloaded}},
			llm.ErrServer, 529, "overloaded: Overloaded; try again later", 4, 3},
		{"truncated stream", []reply{{body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"},
			{body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"},
			{body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"},
			{body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"}},
			llm.ErrTransport, 0, "ended before the answer was complete", 4, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.replies...)
			var logs strings.Builder
			_, resp, err := collect(t.Context(), newProvider(t, s.URL, &logs), simple)
			if tc.kind == "" {
				if err != nil || resp.Text != "Hello there." {
					t.Fatalf("got %q, %v; want the text after retries", resp.Text, err)
				}
			} else {
				le, ok := errors.AsType[*llm.Error](err)
				if !ok {
					t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
				}
				if le.Kind != tc.kind || le.Status != tc.status || !strings.Contains(le.Error(), tc.contains) {
					t.Errorf("error %q kind %s status %d; want kind %s status %d containing %q", le, le.Kind, le.Status, tc.kind, tc.status, tc.contains)
				}
				if strings.ContainsAny(le.Error(), "\n\r") {
					t.Errorf("error is not one line: %q", le)
				}
			}
			if s.Len() != tc.requests {
				t.Errorf("%d requests, want %d", s.Len(), tc.requests)
			}
			if n := strings.Count(logs.String(), "retrying"); n != tc.retryLogs {
				t.Errorf("%d retry log lines, want %d:\n%s", n, tc.retryLogs, logs.String())
			}
			if err != nil && strings.Contains(err.Error(), testKey) || strings.Contains(logs.String(), testKey) {
				t.Errorf("the API key leaked: %v\n%s", err, logs.String())
			}
		})
	}
}

// TestRetryAfterHonoured: the server's wait is kept (capped by RetryMax).
func TestRetryAfterHonoured(t *testing.T) {
	s := newServer(t, reply{status: 429, header: map[string]string{"Retry-After-Ms": "120"},
		body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`}, reply{file: "text.sse"})
	p, err := New(Config{BaseURL: s.URL, APIKey: testKey, RetryBase: time.Millisecond, RetryMax: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, _, err := collect(t.Context(), p, simple); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 120*time.Millisecond {
		t.Errorf("retried after %v, before the advised 120ms", d)
	}
}

// TestNoRetryAfterYield: once a chunk reached the consumer, a failure ends
// the stream.
func TestNoRetryAfterYield(t *testing.T) {
	body := strings.Replace(readFile(t, "text.sse"), "event: content_block_stop", "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\nevent: content_block_stop", 1)
	s := newServer(t, reply{body: body}, reply{file: "text.sse"})
	_, resp, err := collect(t.Context(), newProvider(t, s.URL, nil), simple)
	le, ok := errors.AsType[*llm.Error](err)
	if !ok || le.Kind != llm.ErrServer || resp.Text != "Hello there." {
		t.Fatalf("got %q, %v; want the partial text and an overloaded error", resp.Text, err)
	}
	if s.Len() != 1 {
		t.Errorf("%d requests after a chunk was yielded, want 1", s.Len())
	}
}

func TestCancel(t *testing.T) {
	s := newServer(t, reply{body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"wait\"}}\n\n", block: true})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		var err error
		for c, e := range newProvider(t, s.URL, nil).Stream(ctx, simple) {
			if e != nil {
				err = e
				break
			}
			if c.Kind == llm.ChunkText {
				cancel()
			}
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled stream ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end after cancel")
	}
}

func TestUnreachable(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	base := strings.Replace(s.URL, "http://", "http://user:pw-secret@", 1)
	s.Close()
	p, err := New(Config{BaseURL: base, APIKey: testKey, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = collect(t.Context(), p, simple)
	le, ok := errors.AsType[*llm.Error](err)
	if !ok || le.Kind != llm.ErrTransport {
		t.Fatalf("got %v, want a transport error", err)
	}
	if strings.Contains(err.Error(), "pw-secret") || strings.Contains(err.Error(), testKey) {
		t.Errorf("error leaks credentials: %v", err)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, c := range []Config{{APIKey: ""}, {APIKey: testKey, BaseURL: "ftp://x"}, {APIKey: testKey, BaseURL: "http://u:secret@%zz"}} {
		if _, err := New(c); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("New(%+v) = %v", c.BaseURL, err)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestIdleTimeout: a server that goes silent mid-stream ends the request
// with a transport error saying so, instead of hanging.
func TestIdleTimeout(t *testing.T) {
	s := newServer(t, reply{body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n", block: true})
	p, err := New(Config{BaseURL: s.URL, APIKey: testKey, MaxRetries: -1, IdleTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = collect(t.Context(), p, simple)
	le, ok := errors.AsType[*llm.Error](err)
	if !ok || le.Kind != llm.ErrTransport || !strings.Contains(le.Message, "no data from") {
		t.Fatalf("got %v, want an idle transport error", err)
	}
}
