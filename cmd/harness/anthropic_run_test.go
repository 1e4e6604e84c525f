package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/llm/anthropic/anthropictest"
	"github.com/harness-dev/harness/internal/logtest"
)

// runInstalled runs the README's install (bin/harness with the real
// plugins next to it) with state dir state and the extra environment env;
// it returns stdout and stderr and fails the test unless it exits 0.
func runInstalled(t *testing.T, state string, env []string, args ...string) (string, string) {
	t.Helper()
	bin := installedHarness(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(installedEnv(state), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("harness %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// stepOne returns the data of the log's assistant/message of step 1.
func stepOne(t *testing.T, evs []map[string]any) map[string]any {
	t.Helper()
	for _, ev := range evs {
		if d, _ := ev["data"].(map[string]any); ev["type"] == "assistant/message" && d["step"] == float64(1) {
			return d
		}
	}
	t.Fatalf("no assistant/message of step 1 in the log: %v", logtest.Types(evs))
	return nil
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestRunAnthropic is issue 18's first acceptance through the command:
// the built `harness run --provider anthropic`, with the real plugins,
// against a recording fake of the Messages API (HARNESS_BASE_URL). The
// model thinks and calls todo_write, then answers; the second request
// sends the thinking block back unchanged with its signature and carries
// cache_control on the system prompt and the tools; the key goes in
// x-api-key (the fake refuses anything else); the log's step usage has
// the cache fields; the key shows nowhere.
func TestRunAnthropic(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-cmd-test-0123456789abcdef"
	var replies []anthropictest.Reply
	for _, f := range []string{"thinking_tool.sse", "text.sse"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "host", "llm", "anthropic", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, anthropictest.Reply{Body: b})
	}
	srv := anthropictest.New(t, key, replies...)
	state := t.TempDir()
	out, errOut := runInstalled(t, state, []string{"ANTHROPIC_API_KEY=" + key, "HARNESS_BASE_URL=" + srv.URL},
		"run", "--yes", "--provider", "anthropic", "plan the work")
	if !strings.Contains(out, "Hello there.") {
		t.Errorf("stdout lacks the final answer:\n%s", out)
	}

	if srv.Len() != 2 {
		t.Fatalf("%d requests, want 2", srv.Len())
	}
	second := srv.Request(1)
	ephemeral := map[string]any{"type": "ephemeral"}
	sys, _ := second["system"].([]any)
	if len(sys) == 0 || !sameJSON(sys[0].(map[string]any)["cache_control"], ephemeral) {
		t.Errorf("second request's system = %v, want the prompt with cache_control", sys)
	}
	tools, _ := second["tools"].([]any)
	if len(tools) == 0 || !sameJSON(tools[len(tools)-1].(map[string]any)["cache_control"], ephemeral) {
		t.Errorf("second request's last tool has no cache_control (%d tools)", len(tools))
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	if !strings.Contains(strings.Join(names, " "), "todo_write") {
		t.Errorf("tools %v lack the real todo plugin's todo_write", names)
	}
	msgs := second["messages"].([]any)
	asst := msgs[1].(map[string]any)["content"].([]any)
	wantThinking := map[string]any{"type": "thinking", "thinking": "The user wants a plan. I should add a todo.",
		"signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+sig=="}
	if !sameJSON(asst[0], wantThinking) {
		t.Errorf("second request's assistant message starts with %v, want the thinking block unchanged", asst[0])
	}
	res := msgs[len(msgs)-1].(map[string]any)["content"].([]any)[0].(map[string]any)
	if res["type"] != "tool_result" || res["tool_use_id"] != "toolu_01A" || res["is_error"] == true {
		t.Errorf("last message = %v, want todo_write's result", res)
	}

	evs, path := logtest.ReadLog(t, state)
	d := stepOne(t, evs)
	if blocks, _ := d["blocks"].([]any); len(blocks) != 1 || blocks[0].(map[string]any)["signature"] != wantThinking["signature"] {
		t.Errorf("logged blocks = %v, want the thinking block with its signature", d["blocks"])
	}
	if u, _ := d["usage"].(map[string]any); u["cacheWriteTokens"] != float64(2048) || u["inputTokens"] != float64(472) {
		t.Errorf("logged usage of step 1 = %v, want 472 input and 2048 cache-write tokens", u)
	}
	if last := evs[len(evs)-1]; last["type"] != "turn/end" || last["data"].(map[string]any)["reason"] != "completed" {
		t.Errorf("last event = %v, want a completed turn/end", last)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"stdout": out, "stderr": errOut, "the log": string(raw)} {
		if strings.Contains(s, key) {
			t.Errorf("the API key is in %s", what)
		}
	}
}

// TestRunOpenAIResponses is issue 18's second acceptance through the
// command: the built `harness run --provider openai-responses` against a
// recording fake of the Responses API. The model reasons and calls
// todo_write, then answers; the second request carries the first step's
// reasoning item (id, summary, encrypted content) before the call and its
// output; the log's step usage has the cached tokens.
func TestRunOpenAIResponses(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-cmd-test-0123456789abcdef"
	var replies [][]byte
	for _, f := range []string{"reasoning_tool.sse", "text.sse"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "host", "llm", "responses", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, b)
	}
	var mu sync.Mutex
	var reqs []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil {
			t.Errorf("request is not JSON: %v", err)
		}
		mu.Lock()
		n := len(reqs)
		reqs = append(reqs, body)
		mu.Unlock()
		switch {
		case r.URL.Path != "/v1/responses":
			http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		case r.Header.Get("Authorization") != "Bearer "+key:
			http.Error(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, http.StatusUnauthorized)
		case n >= len(replies):
			http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(replies[n])
		}
	}))
	defer srv.Close()

	state := t.TempDir()
	out, errOut := runInstalled(t, state, []string{"OPENAI_API_KEY=" + key, "HARNESS_BASE_URL=" + srv.URL + "/v1"},
		"run", "--yes", "--provider", "openai-responses", "plan the work")
	if !strings.Contains(out, "Hello there.") {
		t.Errorf("stdout lacks the final answer:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	input := reqs[1]["input"].([]any)
	wantReasoning := map[string]any{"type": "reasoning", "id": "rs_02", "encrypted_content": "gAAAAABpZ-encrypted-reasoning-02==",
		"summary": []any{map[string]any{"type": "summary_text", "text": "**Planning** I should add a todo."}}}
	var types []string
	found := -1
	for i, it := range input {
		m := it.(map[string]any)
		types = append(types, itemKind(m["type"], m["role"]))
		if m["type"] == "reasoning" && sameJSON(m, wantReasoning) {
			found = i
		}
	}
	if found < 0 || found+2 >= len(input) || types[found+1] != "function_call" || types[found+2] != "function_call_output" {
		t.Errorf("second request's input %v, want the reasoning item unchanged before the call and its output:\n%v", types, input)
	}
	if reqs[1]["store"] != false {
		t.Errorf("second request's store = %v, want false", reqs[1]["store"])
	}

	evs, path := logtest.ReadLog(t, state)
	if u, _ := stepOne(t, evs)["usage"].(map[string]any); u["cacheReadTokens"] != float64(1280) || u["reasoningTokens"] != float64(96) {
		t.Errorf("logged usage of step 1 = %v, want 1280 cache-read and 96 reasoning tokens", u)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"stdout": out, "stderr": errOut, "the log": string(raw)} {
		if strings.Contains(s, key) {
			t.Errorf("the API key is in %s", what)
		}
	}
}

// itemKind returns the first of a, b that is a non-empty string.
func itemKind(a, b any) string {
	if s, _ := a.(string); s != "" {
		return s
	}
	s, _ := b.(string)
	return s
}
