package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

func conversation() llm.Request {
	return llm.Request{
		Model:     "deepseek-reasoner",
		System:    "You are harness, a coding agent. Work in /src & keep <answers> short.",
		MaxTokens: 4096,
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "Run the tests and read llm.go."},
			{
				Role:      llm.RoleAssistant,
				Reasoning: "Two independent calls; run both.",
				ToolCalls: []llm.ToolCall{
					{ID: "call_0_a1", Name: "bash", Arguments: `{"command":"go test ./..."}`},
					{ID: "call_1_b2", Name: "read_file", Arguments: `{"path":"host/llm/llm.go"}`},
					{ID: "call_2_c3", Name: "todo_read"},
				},
			},
			{Role: llm.RoleTool, ToolCallID: "call_0_a1", Text: "Error: exit status 1\n--- FAIL: TestReplay", IsError: true},
			{Role: llm.RoleTool, ToolCallID: "call_1_b2", Text: "package llm\n"},
			{Role: llm.RoleTool, ToolCallID: "call_2_c3", Text: ""},
			{Role: llm.RoleAssistant, Text: "TestReplay fails; llm.go looks fine.", Reasoning: "Summarise."},
			{Role: llm.RoleUser, Text: "Fix it."},
			{Role: llm.RoleAssistant, Text: "Looking.", ToolCalls: []llm.ToolCall{{ID: "call_3_d4", Name: "read_file", Arguments: `{"path":"x"}`}}},
			{Role: llm.RoleTool, ToolCallID: "call_3_d4", Text: "ok"},
		},
		Tools: []llm.ToolSpec{
			{Name: "bash", Description: "Run a shell command.", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
			{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "todo_read", Description: "Show the todo list."},
		},
	}
}

// TestRequestGolden checks the whole request body sent for a conversation
// with every kind of message against testdata/request.golden.json.
func TestRequestGolden(t *testing.T) {
	s := newServer(t, reply{file: "deepseek_text.sse"})
	p, _ := newTestProvider(t, s)
	if _, err := collect(t, p.Stream(t.Context(), conversation())); err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, s.requests()[0].body, "", "  "); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, s.requests()[0].body)
	}
	pretty.WriteByte('\n')
	golden(t, "request.golden.json", pretty.Bytes())
}

func TestRequestWithoutTools(t *testing.T) {
	body, err := encodeRequest("m", llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`
	if diff := cmp.Diff(want, string(body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if _, err := encodeRequest("m", llm.Request{Messages: []llm.Message{{Role: "system", Text: "x"}}}); err == nil {
		t.Error("an unknown role was encoded")
	}
}

// TestReasoningSentBack streams a DeepSeek answer with reasoning and a tool
// call, then checks that the follow-up request carries reasoning_content on
// that assistant message.
func TestReasoningSentBack(t *testing.T) {
	s := newServer(t, reply{file: "deepseek_reasoning.sse"}, reply{file: "deepseek_text.sse"})
	p, _ := newTestProvider(t, s)
	req := llm.Request{Model: "deepseek-reasoner", Messages: []llm.Message{{Role: llm.RoleUser, Text: "Track the fix."}}}

	var a llm.Assembler
	for c, err := range p.Stream(t.Context(), req) {
		if err != nil {
			t.Fatal(err)
		}
		a.Add(c)
	}
	r := a.Response()
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, Text: r.Text, Reasoning: r.Reasoning, ToolCalls: r.ToolCalls},
		llm.Message{Role: llm.RoleTool, ToolCallID: r.ToolCalls[0].ID, Text: "Todo list updated."},
	)
	if _, err := collect(t, p.Stream(t.Context(), req)); err != nil {
		t.Fatal(err)
	}

	reqs := s.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].body, &body); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"role": "user", "content": "Track the fix."},
		{
			"role":              "assistant",
			"content":           "I'll update the list.",
			"reasoning_content": "The user wants the todo list updated. I should call todo_write.",
			"tool_calls": []any{map[string]any{
				"id":   "call_0_6f2d9a41-3c8e-4b7a-a1d2-9e8f7c6b5a40",
				"type": "function",
				"function": map[string]any{
					"name":      "todo_write",
					"arguments": `{"todos":[{"content":"Fix torn tail","status":"in_progress"}]}`,
				},
			}},
		},
		{"role": "tool", "tool_call_id": "call_0_6f2d9a41-3c8e-4b7a-a1d2-9e8f7c6b5a40", "content": "Todo list updated."},
	}
	if diff := cmp.Diff(want, body.Messages); diff != "" {
		t.Errorf("follow-up messages (-want +got):\n%s", diff)
	}
}

// TestReasoningEffort: a request's reasoning effort goes out as
// reasoning_effort; none is sent when unset (TestRequestWithoutTools).
func TestReasoningEffort(t *testing.T) {
	body, err := encodeRequest("m", llm.Request{ReasoningEffort: "high", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true},"reasoning_effort":"high"}`
	if diff := cmp.Diff(want, string(body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}
