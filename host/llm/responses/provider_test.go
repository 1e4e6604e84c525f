package responses

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
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm"
)

const testKey = "sk-proj-test-0123456789abcdef"

type reply struct {
	status int
	header map[string]string
	file   string
	body   string
	block  bool
}

type server struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	replies []reply
	reqs    []map[string]any
}

func newServer(t *testing.T, replies ...reply) *server {
	t.Helper()
	s := &server{t: t, replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/responses" {
		s.t.Errorf("request to %s, want /v1/responses", r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		s.t.Errorf("Authorization = %q", got)
	}
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &body); err != nil {
		s.t.Errorf("request body is not JSON: %v", err)
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, body)
	n := len(s.reqs)
	var rp reply
	ok := n <= len(s.replies)
	if ok {
		rp = s.replies[n-1]
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("unexpected request %d", n)
		http.Error(w, "no more replies", http.StatusTeapot)
		return
	}
	ct := "text/event-stream"
	if rp.status >= 400 {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(max(rp.status, 200))
	data := []byte(rp.body)
	if rp.file != "" {
		var err error
		if data, err = os.ReadFile(filepath.Join("testdata", rp.file)); err != nil {
			s.t.Error(err)
		}
	}
	for len(data) > 0 {
		k := min(len(data), 41)
		w.Write(data[:k])
		w.(http.Flusher).Flush()
		data = data[k:]
	}
	if rp.block {
		<-r.Context().Done()
	}
}

func newProvider(t *testing.T, base string, logs io.Writer) *Provider {
	t.Helper()
	if logs == nil {
		logs = io.Discard
	}
	p, err := New(Config{BaseURL: base + "/v1", APIKey: testKey, KeyHint: "check OPENAI_API_KEY",
		RetryBase: time.Millisecond, RetryMax: 50 * time.Millisecond,
		Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

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
		name, file string
		want       llm.Response
	}{
		{"text", "text.sse", llm.Response{Text: "Hello there.", Finish: llm.FinishStop, Usage: &llm.Usage{InputTokens: 36, OutputTokens: 9}}},
		{"reasoning and a tool call with streamed arguments", "reasoning_tool.sse", llm.Response{
			Reasoning: "**Planning** I should add a todo.",
			Blocks: []llm.Block{{Provider: Name, Model: DefaultModel, Type: "reasoning", ID: "rs_02", Text: "**Planning** I should add a todo.",
				Data: "gAAAAABpZ-encrypted-reasoning-02=="}},
			ToolCalls: []llm.ToolCall{{ID: "call_Xy12", Name: "todo_write", Arguments: `{"todos": [{"content": "write tests", "status": "pending"}]}`}},
			Finish:    llm.FinishToolCalls,
			Usage:     &llm.Usage{InputTokens: 220, CacheReadTokens: 1280, OutputTokens: 120, ReasoningTokens: 96}}},
		{"incomplete", "incomplete.sse", llm.Response{Text: "Cut", Finish: llm.FinishMaxTokens, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 16}}},
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
			if n := len(cs); n < 2 || cs[n-1].Kind != llm.ChunkFinish || cs[n-2].Kind != llm.ChunkUsage {
				t.Errorf("stream does not end with usage, finish")
			}
		})
	}
}

// TestReasoningCarried: the second request of a tool-calling step carries
// the first step's reasoning item unchanged, with its encrypted content,
// then the function call and its output; nothing is stored server-side.
func TestReasoningCarried(t *testing.T) {
	s := newServer(t, reply{file: "reasoning_tool.sse"}, reply{file: "text.sse"})
	p := newProvider(t, s.URL, nil)
	req := llm.Request{System: "you are harness", Messages: []llm.Message{{Role: llm.RoleUser, Text: "plan it"}},
		Tools: []llm.ToolSpec{{Name: "todo_write", Description: "write todos", Parameters: json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array"}}}`)}}}
	_, first, err := collect(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, Text: first.Text, Reasoning: first.Reasoning, Blocks: first.Blocks, ToolCalls: first.ToolCalls},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_Xy12", Text: "1 todo"})
	if _, _, err := collect(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	got := s.reqs[1]
	s.mu.Unlock()
	want := map[string]any{
		"model":        DefaultModel,
		"stream":       true,
		"store":        false,
		"include":      []any{"reasoning.encrypted_content"},
		"instructions": "you are harness",
		"tools": []any{map[string]any{"type": "function", "name": "todo_write", "description": "write todos", "strict": false,
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"todos": map[string]any{"type": "array"}}}}},
		"input": []any{
			map[string]any{"role": "user", "content": "plan it"},
			map[string]any{"type": "reasoning", "id": "rs_02", "encrypted_content": "gAAAAABpZ-encrypted-reasoning-02==",
				"summary": []any{map[string]any{"type": "summary_text", "text": "**Planning** I should add a todo."}}},
			map[string]any{"type": "function_call", "call_id": "call_Xy12", "name": "todo_write",
				"arguments": `{"todos": [{"content": "write tests", "status": "pending"}]}`},
			map[string]any{"type": "function_call_output", "call_id": "call_Xy12", "output": "1 todo"},
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("second request (-want +got):\n%s", d)
	}
}

func TestErrors(t *testing.T) {
	e500 := `{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}`
	for _, tc := range []struct {
		name      string
		replies   []reply
		kind      llm.ErrorKind
		contains  string
		requests  int
		retryLogs int
	}{
		{"401 names the key variable", []reply{{status: 401, body: `{"error":{"message":"Incorrect API key provided: sk-proj-test-0123456789abcdef","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}},
			llm.ErrAuth, "the API key was refused; check OPENAI_API_KEY", 1, 0},
		{"quota", []reply{{status: 429, body: `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`}},
			llm.ErrAuth, "quota is exhausted", 1, 0},
		{"context length", []reply{{status: 400, body: `{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`}},
			llm.ErrContextLength, "does not fit the model's context window", 1, 0},
		{"429 retried", []reply{{status: 429, header: map[string]string{"Retry-After-Ms": "5"}, body: `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`}, {file: "text.sse"}}, "", "", 2, 1},
		{"500 retried", []reply{{status: 500, body: e500}, {file: "text.sse"}}, "", "", 2, 1},
		{"error event before any chunk retried", []reply{{file: "error_event.sse"}, {file: "text.sse"}}, "", "", 2, 1},
		{"response.failed until retries run out", []reply{{file: "failed.sse"}, {file: "failed.sse"}, {file: "failed.sse"}, {file: "failed.sse"}},
			llm.ErrServer, "stream error: The server had an error processing your request.", 4, 3},
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
				if le.Kind != tc.kind || !strings.Contains(le.Error(), tc.contains) || strings.ContainsAny(le.Error(), "\r\n") {
					t.Errorf("error %q kind %s; want kind %s containing %q on one line", le, le.Kind, tc.kind, tc.contains)
				}
			}
			if len(s.reqs) != tc.requests {
				t.Errorf("%d requests, want %d", len(s.reqs), tc.requests)
			}
			if n := strings.Count(logs.String(), "retrying"); n != tc.retryLogs {
				t.Errorf("%d retry log lines, want %d", n, tc.retryLogs)
			}
			if err != nil && strings.Contains(err.Error(), testKey) || strings.Contains(logs.String(), testKey) {
				t.Errorf("the API key leaked: %v\n%s", err, logs.String())
			}
		})
	}
}

func TestCancel(t *testing.T) {
	s := newServer(t, reply{body: "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"wait\"}\n\n", block: true})
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
