package script

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/llm"
)

// collect drains a stream; it returns the chunks and the error that ended it.
func collect(seq func(func(llm.Chunk, error) bool)) ([]llm.Chunk, error) {
	var out []llm.Chunk
	for c, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

func assemble(chunks []llm.Chunk) llm.Response {
	var a llm.Assembler
	for _, c := range chunks {
		a.Add(c)
	}
	return a.Response()
}

func mustLoad(t *testing.T, s string) *Provider {
	t.Helper()
	p, err := Load(strings.NewReader(s))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script, want string
	}{
		{"unknown field", "{}\n\n{\"txt\":\"x\"}", `line 3: json: unknown field "txt"`},
		{"not an object", `"hello"`, "line 1: not a JSON object"},
		{"null", `null`, "line 1: not a JSON object"},
		{"two values", `{} {}`, "line 1: more than one JSON value"},
		{"broken JSON", `{"text":`, "line 1: unexpected EOF"},
		{"unknown finish", `{"finish":"done"}`, `line 1: unknown finish "done"`},
		{"negative delay", `{"delayMs":-1}`, "line 1: negative delayMs -1"},
		{"error and hang", `{"error":"x","hang":true}`, "line 1: both error and hang"},
		{"finish on error line", `{"error":"x","finish":"stop"}`, "line 1: finish and usage are never sent"},
		{"usage on hang line", `{"hang":true,"usage":{"input":1}}`, "line 1: finish and usage are never sent"},
		{"negative usage", `{"usage":{"output":-2}}`, "line 1: negative usage"},
		{"nameless call", `{"toolCalls":[{"id":"a"}]}`, "line 1: toolCalls[0] has no name"},
		{"args twice", `{"toolCalls":[{"name":"a","args":{},"arguments":"{}"}]}`, "line 1: toolCalls[0] has both args and arguments"},
		{"unknown call field", `{"toolCalls":[{"name":"a","argz":{}}]}`, `line 1: json: unknown field "argz"`},
		{"unknown role", `{"expect":{"lastRole":"system"}}`, `line 1: unknown expect.lastRole "system"`},
		{"unknown expect field", "# c\n{\"expect\":{\"last\":1}}", `line 2: json: unknown field "last"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(strings.NewReader(tt.script))
			if err == nil {
				t.Fatalf("Load succeeded, want error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "load script: ") {
				t.Errorf("error = %q, want it to start with \"load script: \" and contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

func TestLoadCommentsAndBlankLines(t *testing.T) {
	t.Parallel()
	p := mustLoad(t, "// a comment\n\n   # another\r\n{\"text\":\"one\"}\r\n\t\n  // indented comment\n{\"text\":\"two\"}\n")
	if got := p.Remaining(); got != 2 {
		t.Fatalf("Remaining = %d, want 2", got)
	}
	for _, want := range []string{"one", "two"} {
		chunks, err := collect(p.Stream(context.Background(), llm.Request{}))
		if err != nil {
			t.Fatal(err)
		}
		if got := assemble(chunks).Text; got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
	}
	if got := p.Remaining(); got != 0 {
		t.Errorf("Remaining = %d, want 0", got)
	}
}

func TestStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		line string
		want llm.Response
		// minimum number of text and reasoning chunks
		minText, minReasoning int
	}{
		{
			name:    "text only",
			line:    `{"text":"Hello there,  world!\nBye."}`,
			want:    llm.Response{Text: "Hello there,  world!\nBye.", Finish: llm.FinishStop},
			minText: 4,
		},
		{
			name:         "reasoning, text, usage",
			line:         `{"reasoning":"think  hard","text":" lead and trail ","usage":{"input":10,"output":5,"cacheRead":2,"reasoning":3}}`,
			want:         llm.Response{Reasoning: "think  hard", Text: " lead and trail ", Usage: &llm.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 2, ReasoningTokens: 3}, Finish: llm.FinishStop},
			minText:      3,
			minReasoning: 2,
		},
		{
			name: "tool calls default to tool_calls",
			line: `{"text":"Let me.","toolCalls":[{"id":"c1","name":"todo_write","args":{"todos": [ {"content":"a","status":"pending"} ]}},{"name":"x"}]}`,
			want: llm.Response{Text: "Let me.", ToolCalls: []llm.ToolCall{
				{ID: "c1", Name: "todo_write", Arguments: `{"todos":[{"content":"a","status":"pending"}]}`},
				{ID: "call_1_2", Name: "x", Arguments: `{}`},
			}, Finish: llm.FinishToolCalls},
			minText: 2,
		},
		{
			name: "raw arguments",
			line: `{"toolCalls":[{"id":"c","name":"t","arguments":"{not json"},{"id":"d","name":"t","arguments":""},{"id":"e","name":"t","arguments":"{\"é\":\"ü\"}"}]}`,
			want: llm.Response{ToolCalls: []llm.ToolCall{
				{ID: "c", Name: "t", Arguments: "{not json"},
				{ID: "d", Name: "t", Arguments: ""},
				{ID: "e", Name: "t", Arguments: `{"é":"ü"}`},
			}, Finish: llm.FinishToolCalls},
		},
		{
			name: "explicit finish",
			line: `{"text":"cut off","toolCalls":[{"id":"c","name":"t"}],"finish":"max_tokens"}`,
			want: llm.Response{Text: "cut off", ToolCalls: []llm.ToolCall{{ID: "c", Name: "t", Arguments: "{}"}}, Finish: llm.FinishMaxTokens},
		},
		{
			name: "empty answer",
			line: `{}`,
			want: llm.Response{Finish: llm.FinishStop},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := mustLoad(t, tt.line)
			chunks, err := collect(p.Stream(context.Background(), llm.Request{}))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, assemble(chunks)); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			checkShape(t, chunks, tt.minText, tt.minReasoning)
		})
	}
}

// checkShape checks the stream contract: reasoning, text, tool calls, then
// at most one usage and exactly one finish, last.
func checkShape(t *testing.T, chunks []llm.Chunk, minText, minReasoning int) {
	t.Helper()
	if len(chunks) == 0 || chunks[len(chunks)-1].Kind != llm.ChunkFinish {
		t.Fatalf("stream does not end with a finish chunk: %+v", chunks)
	}
	count := map[llm.ChunkKind]int{}
	perCall := map[int]int{}
	rank := map[llm.ChunkKind]int{llm.ChunkReasoning: 1, llm.ChunkText: 2, llm.ChunkToolCall: 3, llm.ChunkUsage: 4, llm.ChunkFinish: 5}
	last := 0
	for _, c := range chunks {
		if rank[c.Kind] < last {
			t.Errorf("chunk kind %d out of order", c.Kind)
		}
		last = rank[c.Kind]
		count[c.Kind]++
		if c.Kind == llm.ChunkToolCall {
			if perCall[c.ToolCall.Index] == 0 && (c.ToolCall.ID == "" || c.ToolCall.Name == "") {
				t.Errorf("first delta of call %d lacks ID or name: %+v", c.ToolCall.Index, c.ToolCall)
			}
			if perCall[c.ToolCall.Index] > 0 && (c.ToolCall.ID != "" || c.ToolCall.Name != "") {
				t.Errorf("later delta of call %d repeats ID or name: %+v", c.ToolCall.Index, c.ToolCall)
			}
			perCall[c.ToolCall.Index]++
		}
		if (c.Kind == llm.ChunkText || c.Kind == llm.ChunkReasoning) && c.Text == "" {
			t.Errorf("empty %d delta", c.Kind)
		}
	}
	if count[llm.ChunkText] < minText || count[llm.ChunkReasoning] < minReasoning {
		t.Errorf("got %d text and %d reasoning chunks, want at least %d and %d", count[llm.ChunkText], count[llm.ChunkReasoning], minText, minReasoning)
	}
	for i, n := range perCall {
		if n < 2 {
			t.Errorf("call %d streamed in %d deltas, want at least 2", i, n)
		}
	}
	if count[llm.ChunkUsage] > 1 || count[llm.ChunkFinish] != 1 {
		t.Errorf("got %d usage and %d finish chunks", count[llm.ChunkUsage], count[llm.ChunkFinish])
	}
}

func TestStreamError(t *testing.T) {
	t.Parallel()
	p := mustLoad(t, `{"text":"partial answer","error":"upstream exploded"}`)
	chunks, err := collect(p.Stream(context.Background(), llm.Request{}))
	var le *llm.Error
	if !errors.As(err, &le) || le.Message != "upstream exploded" {
		t.Fatalf("error = %v, want *llm.Error with message %q", err, "upstream exploded")
	}
	if got := assemble(chunks).Text; got != "partial answer" {
		t.Errorf("text before the error = %q", got)
	}
	for _, c := range chunks {
		if c.Kind == llm.ChunkFinish || c.Kind == llm.ChunkUsage {
			t.Errorf("got %v chunk on an error line", c.Kind)
		}
	}
}

func TestStreamHang(t *testing.T) {
	t.Parallel()
	p := mustLoad(t, `{"text":"partial answer","hang":true}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var text strings.Builder
	var err error
	for c, e := range p.Stream(ctx, llm.Request{}) {
		if e != nil {
			err = e
			break
		}
		text.WriteString(c.Text)
		if c.Kind == llm.ChunkFinish {
			t.Fatal("hang line finished")
		}
		if text.String() == "partial answer" {
			cancel() // everything arrived: the stream now waits for this
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

func TestStreamCancelDuringDelay(t *testing.T) {
	t.Parallel()
	p := mustLoad(t, `{"text":"one two three","delayMs":60000}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	var err error
	for c, e := range p.Stream(ctx, llm.Request{}) {
		if e != nil {
			err = e
			break
		}
		got = append(got, c.Text)
		cancel()
	}
	if !errors.Is(err, context.Canceled) || len(got) != 1 || got[0] != "one " {
		t.Fatalf("got %q then %v, want [\"one \"] then context.Canceled", got, err)
	}
}

func TestStreamCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	p := mustLoad(t, `{"text":"never"}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	chunks, err := collect(p.Stream(ctx, llm.Request{}))
	if !errors.Is(err, context.Canceled) || len(chunks) != 0 {
		t.Fatalf("got %d chunks and %v, want none and context.Canceled", len(chunks), err)
	}
}

func TestStreamConsumerStopsEarly(t *testing.T) {
	t.Parallel()
	p := mustLoad(t, `{"text":"a b c d","hang":true}`)
	for range p.Stream(context.Background(), llm.Request{}) {
		break // must not block or panic
	}
}

func TestExhausted(t *testing.T) {
	t.Parallel()
	p := mustLoad(t, "{}\n{}\n")
	for range 2 {
		if _, err := collect(p.Stream(context.Background(), llm.Request{})); err != nil {
			t.Fatal(err)
		}
	}
	_, err := collect(p.Stream(context.Background(), llm.Request{}))
	const want = "script: no response left for request 3 (the script has 2)"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
	if got := len(p.Requests()); got != 3 {
		t.Errorf("recorded %d requests, want 3", got)
	}
}

func TestExpect(t *testing.T) {
	t.Parallel()
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "make a plan"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "todo_write"}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Text: "Updated todo list: 2 items"},
		},
		Tools: []llm.ToolSpec{{Name: "todo_write"}, {Name: "bash"}},
	}
	tests := []struct {
		name, expect, want string
		req                llm.Request
	}{
		{"all met", `{"lastRole":"tool","lastContains":"Updated todo list","toolsInclude":["bash","todo_write"]}`, "", req},
		{"role", `{"lastRole":"user"}`, `script: line 2 expected the last message's role "user", got "tool"`, req},
		{"contains", `{"lastContains":"Deleted"}`, `script: line 2 expected the last message to contain "Deleted", got "Updated todo list: 2 items"`, req},
		{"tools", `{"toolsInclude":["todo_write","grep"]}`, `script: line 2 expected tool "grep" among the request's tools, got ["todo_write" "bash"]`, req},
		{"no messages", `{"lastRole":"user"}`, `script: line 2 expected a last message with role "user", got no messages`, llm.Request{}},
		{"no messages contains", `{"lastContains":"x"}`, `script: line 2 expected a last message containing "x", got no messages`, llm.Request{}},
		{"no images", `{"images":0}`, "", req},
		{"images", `{"images":1}`, `script: line 2 expected 1 images in the request's messages, got 0`, req},
		{"a tool result's image", `{"images":1}`, "", llm.Request{Messages: []llm.Message{{Role: llm.RoleTool, ToolCallID: "c1",
			Images: []llm.Image{{MimeType: "image/png", Data: []byte("\x89PNG")}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := mustLoad(t, "# expectations\n{\"text\":\"ok\",\"expect\":"+tt.expect+"}")
			chunks, err := collect(p.Stream(context.Background(), tt.req))
			if tt.want == "" {
				if err != nil || assemble(chunks).Text != "ok" {
					t.Fatalf("got %v, %v; want the answer", chunks, err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if len(chunks) != 0 {
				t.Errorf("got %d chunks before the expectation error", len(chunks))
			}
		})
	}
}

func TestConcurrentStreams(t *testing.T) {
	t.Parallel()
	const n = 50
	p := mustLoad(t, strings.Repeat(`{"text":"hello world","usage":{"input":1}}`+"\n", n))
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			chunks, err := collect(p.Stream(context.Background(), llm.Request{Model: "m", System: string(rune('a' + i%26))}))
			if err == nil && assemble(chunks).Text != "hello world" {
				err = errors.New("wrong text")
			}
			errs <- err
			_ = p.Remaining()
			_ = p.Requests()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if p.Remaining() != 0 || len(p.Requests()) != n {
		t.Errorf("Remaining = %d, requests = %d; want 0 and %d", p.Remaining(), len(p.Requests()), n)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	if err := os.WriteFile(good, []byte("# demo\n{\"text\":\"hi\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Open(good)
	if err != nil || p.Remaining() != 1 {
		t.Fatalf("Open = %v, %v", p, err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{}\n{\"nope\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), bad+": line 2: ") {
		t.Errorf("Open(bad) = %v, want an error naming the file and line 2", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.jsonl")); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("Open(missing) = %v, want an error naming the file", err)
	}
}

func TestWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"one two", []string{"one ", "two"}},
		{"  lead", []string{"  ", "lead"}},
		{"trail  ", []string{"trail  "}},
		{"a\nb\tc", []string{"a\n", "b\t", "c"}},
		{"héllo wörld", []string{"héllo ", "wörld"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, words(tt.in)); diff != "" {
			t.Errorf("words(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
