package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/llm"
)

func TestStream(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []llm.Chunk
		// wantResponse, when set, is what the chunks assemble to.
		wantResponse *llm.Response
		wantKind     llm.ErrorKind // "" for success
		wantMsg      string        // a part of the error message
	}{
		{
			name: "plain text in many chunks, usage in the finish chunk (DeepSeek)",
			file: "deepseek_text.sse",
			want: concat(
				texts("Hello", "!", " The", " file", " `go", ".mod`", " declares", " module", " `github", ".com", "/h", "arness", "-dev", "/h", "arness", "`", "."),
				usage(58, 17, 1152, 0),
				finish(llm.FinishStop),
			),
		},
		{
			name: "usage in a trailing chunk with empty choices (OpenAI)",
			file: "openai_usage_trailing.sse",
			want: concat(
				texts("Two", " tests", " fail", ":", " `Test", "Replay", "`", " and", " `Test", "Torn", "Tail", "`."),
				usage(512, 12, 1536, 0),
				finish(llm.FinishStop),
			),
		},
		{
			name: "two parallel tool calls split mid-token",
			file: "openai_tool_calls.sse",
			want: concat(
				call(0, "call_Qx1mB7", "read_file", ""),
				args(0, `{"pa`, `th": "ho`, `st/llm/l`, `lm.go"`, `}`),
				call(1, "call_Rk2nC8", "bash", ""),
				args(1, `{"com`, `mand": "go te`, `st ./ho`, `st/...", "timeo`, `ut": 120}`),
				usage(900, 58, 0, 0),
				finish(llm.FinishToolCalls),
			),
			wantResponse: &llm.Response{
				ToolCalls: []llm.ToolCall{
					{ID: "call_Qx1mB7", Name: "read_file", Arguments: `{"path": "host/llm/llm.go"}`},
					{ID: "call_Rk2nC8", Name: "bash", Arguments: `{"command": "go test ./host/...", "timeout": 120}`},
				},
				Usage:  &llm.Usage{InputTokens: 900, OutputTokens: 58},
				Finish: llm.FinishToolCalls,
			},
		},
		{
			name: "DeepSeek reasoning_content, text, then a tool call",
			file: "deepseek_reasoning.sse",
			want: concat(
				reasonings("The", " user", " wants", " the", " todo", " list", " updated", ".", " I", " should", " call", " todo", "_write", "."),
				texts("I'll update the list."),
				call(0, "call_0_6f2d9a41-3c8e-4b7a-a1d2-9e8f7c6b5a40", "todo_write", ""),
				args(0, `{"`, `todos`, `":[{"`, `content`, `":"`, `Fix tor`, `n tail`, `","status`, `":"in_`, `progress`, `"}]}`),
				usage(64, 95, 256, 61),
				finish(llm.FinishToolCalls),
			),
		},
		{
			name: "ollama: reasoning field, calls without index, finish stop with calls",
			file: "ollama_tools.sse",
			want: concat(
				reasonings("Need", " both files."),
				call(0, "call_7v2k9c1x", "read_file", `{"path":"go.mod"}`),
				call(1, "call_m3q8z0fa", "read_file", `{"path":"go.sum"}`),
				usage(411, 64, 0, 0),
				finish(llm.FinishToolCalls),
			),
		},
		{
			name: "llama.cpp: CRLF, arguments as an object, no usage, no [DONE]",
			file: "llamacpp_crlf.sse",
			want: concat(
				reasonings("Check the", " date."),
				call(0, "Xh2kP9", "bash", `{"command":"date"}`),
				finish(llm.FinishToolCalls),
			),
		},
		{
			name:     "an error object in mid-stream",
			file:     "openai_error_midstream.sse",
			want:     texts("Let", " me", " look"),
			wantKind: llm.ErrServer,
			wantMsg:  "stream error: The server had an error while processing your request. Sorry about that!",
		},
		{
			name:     "a stream that ends with no finish reason",
			file:     "no_finish.sse",
			want:     texts("Partial", " answ"),
			wantKind: llm.ErrTransport,
			wantMsg:  "stream ended early",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, reply{file: tt.file})
			p, _ := newTestProvider(t, s)
			got, err := collect(t, p.Stream(t.Context(), simpleRequest()))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
			checkErr(t, err, tt.wantKind, tt.wantMsg)
			if n := len(s.requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
			if tt.wantResponse != nil {
				var a llm.Assembler
				for _, c := range got {
					a.Add(c)
				}
				if diff := cmp.Diff(*tt.wantResponse, a.Response()); diff != "" {
					t.Errorf("assembled (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// checkErr checks that err is an *llm.Error of kind (nil when kind is "")
// whose message contains msg and never the key.
func checkErr(t *testing.T, err error, kind llm.ErrorKind, msg string) {
	t.Helper()
	if kind == "" {
		if err != nil {
			t.Fatalf("error %v, want none", err)
		}
		return
	}
	le, ok := errors.AsType[*llm.Error](err)
	if !ok {
		t.Fatalf("error %v (%T), want an *llm.Error of kind %s", err, err, kind)
	}
	if le.Kind != kind {
		t.Errorf("kind %s, want %s (error %v)", le.Kind, kind, err)
	}
	if !strings.Contains(le.Error(), msg) {
		t.Errorf("error %q does not contain %q", le.Error(), msg)
	}
	if strings.Contains(le.Error(), testKey) || strings.ContainsAny(le.Message, "\n\r") {
		t.Errorf("error %q shows the key or spans lines", le.Error())
	}
}

func TestRetries(t *testing.T) {
	const okFile = "deepseek_text.sse"
	status := func(code int, body string, header ...string) reply {
		h := map[string]string{"Content-Type": "application/json"}
		for i := 0; i+1 < len(header); i += 2 {
			h[header[i]] = header[i+1]
		}
		return reply{status: code, body: body, header: h}
	}
	dropAtOnce := reply{serve: func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}}
	commentsOnly := reply{body: ": keep-alive\n\n"}
	tests := []struct {
		name     string
		replies  []reply
		edit     func(*Config)
		wantReqs int
		wantKind llm.ErrorKind
		wantMsg  string
		wantLogs int // retry lines logged
	}{
		{
			name:     "429 with Retry-After 0, then success",
			replies:  []reply{status(429, `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`, "Retry-After", "0"), {file: okFile}},
			wantReqs: 2, wantLogs: 1,
		},
		{
			name:     "500 twice, then success",
			replies:  []reply{status(500, `{"error":{"message":"Internal error","type":"server_error"}}`), status(502, "<html>bad gateway</html>"), {file: okFile}},
			wantReqs: 3, wantLogs: 2,
		},
		{
			name:     "connection dropped before any byte, then success",
			replies:  []reply{dropAtOnce, {file: okFile}},
			wantReqs: 2, wantLogs: 1,
		},
		{
			name:     "stream ended before any chunk, then success",
			replies:  []reply{commentsOnly, {file: okFile}},
			wantReqs: 2, wantLogs: 1,
		},
		{
			name:     "503 until the retries run out",
			replies:  []reply{status(503, `{"error":{"message":"Server overloaded"}}`), status(503, `{"error":{"message":"Server overloaded"}}`), status(503, `{"error":{"message":"Server\noverloaded, please\ttry later"}}`)},
			edit:     func(c *Config) { c.MaxRetries = 2 },
			wantReqs: 3, wantLogs: 2,
			wantKind: llm.ErrServer, wantMsg: "test: server error: Server overloaded, please try later (HTTP 503)",
		},
		{
			name:     "retries disabled",
			replies:  []reply{status(500, "")},
			edit:     func(c *Config) { c.MaxRetries = -1 },
			wantReqs: 1,
			wantKind: llm.ErrServer, wantMsg: "server error: Internal Server Error",
		},
		{
			name:     "401 is not retried and names the key hint",
			replies:  []reply{status(401, `{"error":{"message":"Authentication Fails, Your api key: `+testKey+` is invalid","type":"authentication_error","param":null,"code":"invalid_request_error"}}`)},
			wantReqs: 1,
			wantKind: llm.ErrAuth, wantMsg: "test: the API key was refused; set TEST_API_KEY (HTTP 401)",
		},
		{
			name:     "401 without a key",
			replies:  []reply{status(401, `{"error":{"message":"You didn't provide an API key."}}`)},
			edit:     func(c *Config) { c.APIKey = "" },
			wantReqs: 1,
			wantKind: llm.ErrAuth, wantMsg: "the server requires an API key and none was set; set TEST_API_KEY",
		},
		{
			name:     "404 unknown model (OpenAI)",
			replies:  []reply{status(404, `{"error":{"message":"The model `+"`test-model`"+` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`)},
			wantReqs: 1,
			wantKind: llm.ErrNotFound, wantMsg: `model "test-model" not found at http://127.0.0.1:`,
		},
		{
			name:     "404 unknown model (ollama)",
			replies:  []reply{status(404, `{"error":"model \"test-model\" not found, try pulling it first"}`)},
			wantReqs: 1,
			wantKind: llm.ErrNotFound, wantMsg: "/v1; check --model",
		},
		{
			name:     "400 unknown model (DeepSeek)",
			replies:  []reply{status(400, `{"error":{"message":"Model Not Exist","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`)},
			wantReqs: 1,
			wantKind: llm.ErrNotFound, wantMsg: `model "test-model" not found`,
		},
		{
			name:     "404 without a chat completions endpoint",
			replies:  []reply{{status: 404, body: "404 page not found\n", header: map[string]string{"Content-Type": "text/plain"}}},
			wantReqs: 1,
			wantKind: llm.ErrNotFound, wantMsg: "/v1/chat/completions; check --base-url (HTTP 404)",
		},
		{
			name:     "400 carries the server's message on one line",
			replies:  []reply{status(400, `{"error":{"message":"This model's maximum context length is 65536 tokens.\nHowever, you requested 70000 tokens.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`)},
			wantReqs: 1,
			wantKind: llm.ErrBadRequest, wantMsg: "the request was refused: This model's maximum context length is 65536 tokens. However, you requested 70000 tokens. (HTTP 400)",
		},
		{
			name:     "422 with a FastAPI detail",
			replies:  []reply{status(422, `{"detail":"messages: field required"}`)},
			wantReqs: 1,
			wantKind: llm.ErrBadRequest, wantMsg: "the request was refused: messages: field required",
		},
		{
			name:     "429 for an exhausted quota is not retried",
			replies:  []reply{status(429, `{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`)},
			wantReqs: 1,
			wantKind: llm.ErrAuth, wantMsg: "quota is exhausted",
		},
		{
			name:     "402 insufficient balance (DeepSeek)",
			replies:  []reply{status(402, `{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}`)},
			wantReqs: 1,
			wantKind: llm.ErrAuth, wantMsg: "Insufficient Balance; check the account's balance",
		},
		{
			name:     "an error object before any chunk is retried",
			replies:  []reply{{body: `data: {"error":{"message":"overloaded","type":"server_error","code":503}}` + "\n\n"}, {file: okFile}},
			wantReqs: 2, wantLogs: 1,
		},
		{
			name:     "a refusal error object before any chunk is not retried",
			replies:  []reply{{body: `data: {"error":{"object":"error","message":"prompt too long","type":"BadRequestError","param":null,"code":400}}` + "\n\n"}},
			wantReqs: 1,
			wantKind: llm.ErrBadRequest, wantMsg: "stream error: prompt too long",
		},
		{
			name:     "a web page instead of a stream",
			replies:  []reply{{body: "<!doctype html><title>Open WebUI</title>", header: map[string]string{"Content-Type": "text/html; charset=utf-8"}}},
			wantReqs: 1,
			wantKind: llm.ErrNotFound, wantMsg: "answered with a web page); check --base-url",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.replies...)
			edit := tt.edit
			if edit == nil {
				edit = func(*Config) {}
			}
			p, logs := newTestProvider(t, s, edit)
			got, err := collect(t, p.Stream(t.Context(), simpleRequest()))
			checkErr(t, err, tt.wantKind, tt.wantMsg)
			if tt.wantKind == "" {
				want := concat(
					texts("Hello", "!", " The", " file", " `go", ".mod`", " declares", " module", " `github", ".com", "/h", "arness", "-dev", "/h", "arness", "`", "."),
					usage(58, 17, 1152, 0),
					finish(llm.FinishStop),
				)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("chunks (-want +got):\n%s", diff)
				}
			}
			if n := len(s.requests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
			if n := strings.Count(logs.String(), "retrying"); n != tt.wantLogs {
				t.Errorf("%d retry log lines, want %d:\n%s", n, tt.wantLogs, logs)
			}
			if strings.Contains(logs.String(), testKey) {
				t.Errorf("logs show the key:\n%s", logs)
			}
		})
	}
}

// TestRetryAfterHonoured checks that the server's wait is used (capped at
// RetryMax) instead of the backoff.
func TestRetryAfterHonoured(t *testing.T) {
	s := newServer(t,
		reply{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{}`},
		reply{file: "deepseek_text.sse"})
	p, _ := newTestProvider(t, s, func(c *Config) { c.RetryBase, c.RetryMax = time.Millisecond, 150*time.Millisecond })
	start := time.Now()
	if _, err := collect(t, p.Stream(t.Context(), simpleRequest())); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 3*time.Second {
		t.Errorf("took %v, want about RetryMax (150ms)", d)
	}
}

// hijacked answers with a raw HTTP response: the status line and headers,
// then body, then closes the connection.
func hijacked(headers, body string) reply {
	return reply{serve: func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n" + headers + "\r\n")
		buf.WriteString(body)
		buf.Flush()
	}}
}

func chunked(s string) string {
	var b strings.Builder
	w := httputil.NewChunkedWriter(&b)
	fmt.Fprint(w, s) // no closing chunk: the body is cut
	return b.String()
}

func TestConnectionDropped(t *testing.T) {
	events := strings.Join(strings.SplitAfter(string(readTestdata(t, "deepseek_text.sse")), "\n\n")[:4], "")
	tests := []struct {
		name    string
		reply   reply
		wantMsg string
	}{
		{"chunked body cut", hijacked("Transfer-Encoding: chunked\r\n", chunked(events)), "connection lost while reading the answer: unexpected EOF"},
		{"close-delimited body cut", hijacked("Connection: close\r\n", events+"data: {\"choi"), "stream ended early"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.reply)
			p, _ := newTestProvider(t, s)
			got, err := collect(t, p.Stream(t.Context(), simpleRequest()))
			if diff := cmp.Diff(texts("Hello", "!"), got); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
			checkErr(t, err, llm.ErrTransport, tt.wantMsg)
			if n := len(s.requests()); n != 1 {
				t.Errorf("%d requests, want 1: nothing is retried once chunks were yielded", n)
			}
		})
	}
}

// stall answers with the first events of a stream (none if before is
// true), then waits for the client to go away, reporting it on gone.
func stall(t *testing.T, before bool, gone chan<- struct{}) reply {
	first := strings.SplitAfter(string(readTestdata(t, "deepseek_text.sse")), "\n\n")[:4]
	return reply{serve: func(w http.ResponseWriter, r *http.Request) {
		if !before {
			w.Header().Set("Content-Type", "text/event-stream")
			writeInPieces(w, []byte(strings.Join(first, "")))
		}
		select {
		case <-r.Context().Done():
			close(gone)
		case <-time.After(10 * time.Second):
		}
	}}
}

func TestCancelWhileServerStalls(t *testing.T) {
	for _, tt := range []struct {
		name   string
		before bool // stall before the headers
		want   []llm.Chunk
	}{
		{"before the headers", true, nil},
		{"mid-stream", false, texts("Hello", "!")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gone := make(chan struct{})
			s := newServer(t, stall(t, tt.before, gone))
			p, _ := newTestProvider(t, s)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var got []llm.Chunk
			var gotErr error
			start := time.Now()
			time.AfterFunc(100*time.Millisecond, cancel)
			for c, err := range p.Stream(ctx, simpleRequest()) {
				if err != nil {
					gotErr = err
					continue
				}
				got = append(got, c)
			}
			if gotErr != context.Canceled {
				t.Errorf("error %v (%T), want context.Canceled itself", gotErr, gotErr)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("returned after %v", d)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
			select {
			case <-gone:
			case <-time.After(2 * time.Second):
				t.Error("the server did not see the request end")
			}
		})
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	s := newServer(t, reply{status: 503, header: map[string]string{"Retry-After": "30"}, body: "{}"})
	p, _ := newTestProvider(t, s, func(c *Config) { c.RetryMax = time.Minute })
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := collect(t, p.Stream(ctx, simpleRequest()))
	if err != context.Canceled {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned after %v", d)
	}
}

func TestConsumerBreaksEarly(t *testing.T) {
	gone := make(chan struct{})
	s := newServer(t, stall(t, false, gone))
	p, _ := newTestProvider(t, s)
	var got []llm.Chunk
	for c, err := range p.Stream(t.Context(), simpleRequest()) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
		break
	}
	if diff := cmp.Diff(texts("Hello"), got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
	select {
	case <-gone:
	case <-time.After(2 * time.Second):
		t.Error("the response body was not closed")
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestIdleTimeout(t *testing.T) {
	for _, tt := range []struct {
		name    string
		before  bool
		wantMsg string
	}{
		{"no headers", true, "no response from http://127.0.0.1:"},
		{"no data", false, "no data from the server for 100ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gone := make(chan struct{})
			s := newServer(t, stall(t, tt.before, gone))
			p, _ := newTestProvider(t, s, func(c *Config) { c.IdleTimeout = 100 * time.Millisecond; c.MaxRetries = -1 })
			_, err := collect(t, p.Stream(t.Context(), simpleRequest()))
			checkErr(t, err, llm.ErrTransport, tt.wantMsg)
			select {
			case <-gone:
			case <-time.After(2 * time.Second):
				t.Error("the server did not see the request end")
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	s := newServer(t)
	s.Close()
	p, logs := newTestProvider(t, s, func(c *Config) { c.MaxRetries = 2 })
	_, err := collect(t, p.Stream(t.Context(), simpleRequest()))
	checkErr(t, err, llm.ErrTransport, "cannot reach http://127.0.0.1:")
	if n := strings.Count(logs.String(), "retrying"); n != 2 {
		t.Errorf("%d retries logged, want 2:\n%s", n, logs)
	}
}

func TestNonStreamedAnswer(t *testing.T) {
	body := `{"id":"chatcmpl-9","object":"chat.completion","created":1767225605,"model":"test-model",
	"choices":[{"index":0,"message":{"role":"assistant","content":"Sure.","reasoning_content":"Easy.",
	"tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},
	"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`
	s := newServer(t, reply{body: body, header: map[string]string{"Content-Type": "application/json"}})
	p, _ := newTestProvider(t, s)
	got, err := collect(t, p.Stream(t.Context(), simpleRequest()))
	if err != nil {
		t.Fatal(err)
	}
	want := concat(reasonings("Easy."), texts("Sure."), call(0, "call_1", "bash", `{"command":"ls"}`), usage(10, 5, 0, 0), finish(llm.FinishToolCalls))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}

func TestRequestHeaders(t *testing.T) {
	for _, key := range []string{testKey, ""} {
		s := newServer(t, reply{file: "deepseek_text.sse"})
		p, _ := newTestProvider(t, s, func(c *Config) {
			c.APIKey = key
			c.Header = http.Header{"X-Gateway": {"team-a"}}
		})
		if _, err := collect(t, p.Stream(t.Context(), simpleRequest())); err != nil {
			t.Fatal(err)
		}
		r := s.requests()[0]
		got := map[string]string{
			"path":          r.path,
			"Authorization": r.header.Get("Authorization"),
			"Content-Type":  r.header.Get("Content-Type"),
			"Accept":        r.header.Get("Accept"),
			"X-Gateway":     r.header.Get("X-Gateway"),
		}
		want := map[string]string{
			"path":          "/v1/chat/completions",
			"Authorization": "",
			"Content-Type":  "application/json",
			"Accept":        "text/event-stream",
			"X-Gateway":     "team-a",
		}
		if key != "" {
			want["Authorization"] = "Bearer " + key
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("key %q: request (-want +got):\n%s", key, diff)
		}
	}
}

func TestNoModel(t *testing.T) {
	s := newServer(t)
	p, _ := newTestProvider(t, s, func(c *Config) { c.Model = "" })
	_, err := collect(t, p.Stream(t.Context(), simpleRequest()))
	checkErr(t, err, llm.ErrBadRequest, "no model set")
}

func TestNew(t *testing.T) {
	for _, tt := range []struct {
		base, want string
	}{
		{"", "no base URL"},
		{"ftp://example.com", `base URL "ftp://example.com" is not an http(s) URL`},
		{"localhost:11434/v1", "is not an http(s) URL"},
		{"http://user:hunter2@[::1", "parse base URL"},
	} {
		_, err := New(Config{BaseURL: tt.base})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("New(%q) = %v, want an error with %q", tt.base, err, tt.want)
		}
	}
	p, err := New(Config{BaseURL: "https://me:hunter2@gw.example.com/v1/?k=1"})
	if err != nil {
		t.Fatal(err)
	}
	if p.endpoint != "https://me:hunter2@gw.example.com/v1/chat/completions?k=1" ||
		p.shownURL != "https://gw.example.com/v1/chat/completions" || p.shownBase != "https://gw.example.com/v1" || p.Name() != DefaultName || p.retry.Max != DefaultMaxRetries {
		t.Errorf("shown %q, name %q, retries %d", p.shownURL, p.Name(), p.retry.Max)
	}
}

func TestDeepSeekPreset(t *testing.T) {
	got := DeepSeek("sk-x")
	want := Config{Name: "deepseek", BaseURL: "https://api.deepseek.com", APIKey: "sk-x", KeyHint: "check DEEPSEEK_API_KEY", Model: "deepseek-chat"}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b *http.Client) bool { return a == b })); diff != "" {
		t.Errorf("preset (-want +got):\n%s", diff)
	}
	p, err := New(got)
	if err != nil {
		t.Fatal(err)
	}
	if p.endpoint != "https://api.deepseek.com/chat/completions" {
		t.Errorf("endpoint %q", p.endpoint)
	}
}

// TestReadChunkBoundaries replays every recording through a reader that
// returns one byte at a time.
func TestReadChunkBoundaries(t *testing.T) {
	for _, name := range []string{"deepseek_reasoning.sse", "llamacpp_crlf.sse", "openai_tool_calls.sse"} {
		whole := decodeAll(t, strings.NewReader(string(readTestdata(t, name))))
		bytewise := decodeAll(t, iotest.OneByteReader(strings.NewReader(string(readTestdata(t, name)))))
		if diff := cmp.Diff(whole, bytewise); diff != "" {
			t.Errorf("%s: byte-wise (-whole +bytewise):\n%s", name, diff)
		}
	}
}

func TestToolCallTracking(t *testing.T) {
	ev := func(calls string) string {
		return `data: {"choices":[{"index":0,"delta":{"tool_calls":` + calls + `}}]}` + "\n\n"
	}
	const end = `data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	tests := []struct {
		name string
		in   string
		want []llm.Chunk
	}{
		{
			name: "indexes as sent",
			in:   ev(`[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]`) + ev(`[{"index":1,"id":"b","function":{"name":"g"}}]`) + ev(`[{"index":0,"function":{"arguments":"{}"}}]`) + end,
			want: []llm.Chunk{call(0, "a", "f", ""), call(1, "b", "g", ""), call(0, "", "", "{}")},
		},
		{
			name: "every call numbered 0",
			in:   ev(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{"}}]`) + ev(`[{"index":0,"function":{"arguments":"}"}}]`) + ev(`[{"index":0,"id":"b","function":{"name":"g","arguments":"{"}}]`) + ev(`[{"index":0,"function":{"arguments":"}"}}]`) + end,
			want: []llm.Chunk{call(0, "a", "f", "{"), call(0, "", "", "}"), call(1, "b", "g", "{"), call(1, "", "", "}")},
		},
		{
			name: "indexes starting at 3",
			in:   ev(`[{"index":3,"id":"a","function":{"name":"f"}}]`) + ev(`[{"index":4,"id":"b","function":{"name":"g"}}]`) + end,
			want: []llm.Chunk{call(0, "a", "f", ""), call(1, "b", "g", "")},
		},
		{
			name: "no index: by id, then continuing the last call",
			in:   ev(`[{"id":"a","function":{"name":"f","arguments":"{\"x\""}}]`) + ev(`[{"function":{"arguments":":1}"}}]`) + ev(`[{"id":"b","function":{"name":"g"}}]`) + ev(`[{"id":"a","function":{"arguments":" "}}]`) + end,
			want: []llm.Chunk{call(0, "a", "f", `{"x"`), call(0, "", "", ":1}"), call(1, "b", "g", ""), call(0, "a", "", " ")},
		},
		{
			name: "no index, no id, several in one delta: by position",
			in:   ev(`[{"function":{"name":"f","arguments":"{"}},{"function":{"name":"g","arguments":"{"}}]`) + ev(`[{"function":{"arguments":"}"}},{"function":{"arguments":"}"}}]`) + end,
			want: []llm.Chunk{call(0, "", "f", "{"), call(1, "", "g", "{"), call(0, "", "", "}"), call(1, "", "", "}")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeAll(t, strings.NewReader(tt.in))
			want := make([]any, 0, len(tt.want)+1)
			for _, c := range tt.want {
				want = append(want, c)
			}
			want = append(want, finish(llm.FinishToolCalls))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
		})
	}
}
