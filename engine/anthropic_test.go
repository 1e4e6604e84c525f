package engine_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/anthropic/anthropictest"
	"github.com/harness-dev/harness/host/llm/providers"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/internal/logtest"
)

// TestAnthropicTurn runs one turn of the real loop with the anthropic
// provider against a recording fake of the Messages API and the real todo
// plugin: the model thinks, calls todo_write, then answers. The second
// request must carry the thinking block back unchanged with its signature
// and cache breakpoints on the system prompt and the tools; the log keeps
// the block and the cache counts.
func TestAnthropicTurn(t *testing.T) {
	const key = "sk-ant-engine-test-secret"
	var replies []anthropictest.Reply
	for _, f := range []string{"thinking_tool.sse", "text.sse"} {
		sse, err := os.ReadFile(filepath.Join("..", "host", "llm", "anthropic", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, anthropictest.Reply{Body: sse})
	}
	srv := anthropictest.New(t, key, replies...)

	var logs logtest.Buffer
	model, name, err := providers.Open(providers.Provider{Name: "anthropic", BaseURL: srv.URL,
		Getenv: func(k string) string {
			if k == "ANTHROPIC_API_KEY" {
				return key
			}
			return ""
		}}, hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Debug}), confine.Supervise)
	if err != nil {
		t.Fatal(err)
	}
	models, err := providers.Choice{Provider: "anthropic", Model: name}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	rt, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{pluginDir}, Model: model, ModelName: name,
		Models: models, MaxSteps: 5, Instructions: "you are harness", Policy: permission.Policy{Mode: permission.ModeAllowAll}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if err := rt.StartTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	s, err := rt.CreateSession(state)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.CloseSession(s)
	out := rt.Run(t.Context(), s, nil, event.Text("plan the work"), nil, nil)
	if out.Err != nil || out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v", out.Reason, out.Err)
	}
	if todos := s.Todos(); len(todos) != 1 || todos[0].Content != "write tests" {
		t.Errorf("todos = %+v, want the one the model wrote", todos)
	}

	if srv.Len() != 2 {
		t.Fatalf("%d requests, want 2", srv.Len())
	}
	second := srv.Request(1)
	ephemeral := map[string]any{"type": "ephemeral"}
	if sys := second["system"].([]any)[0].(map[string]any); !jsonEqual(sys["cache_control"], ephemeral) || !strings.Contains(sys["text"].(string), "you are harness") {
		t.Errorf("system = %v, want the prompt with cache_control", sys)
	}
	tools := second["tools"].([]any)
	if last := tools[len(tools)-1].(map[string]any); !jsonEqual(last["cache_control"], ephemeral) {
		t.Errorf("last tool %v has no cache_control", last["name"])
	}
	msgs := second["messages"].([]any)
	asst := msgs[1].(map[string]any)["content"].([]any)
	wantThinking := map[string]any{"type": "thinking", "thinking": "The user wants a plan. I should add a todo.",
		"signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+sig=="}
	if !jsonEqual(asst[0], wantThinking) {
		t.Errorf("second request's assistant message starts with %v, want the thinking block unchanged", asst[0])
	}
	last := msgs[len(msgs)-1].(map[string]any)["content"].([]any)
	if res := last[0].(map[string]any); res["type"] != "tool_result" || res["tool_use_id"] != "toolu_01A" || !jsonEqual(res["cache_control"], ephemeral) {
		t.Errorf("last message = %v, want the tool result with cache_control", res)
	}

	evs, _ := logtest.ReadLog(t, state)
	var found bool
	for _, ev := range evs {
		if ev["type"] != "assistant/message" {
			continue
		}
		d := ev["data"].(map[string]any)
		if d["step"] != float64(1) {
			continue
		}
		found = true
		blocks, _ := d["blocks"].([]any)
		if len(blocks) != 1 || blocks[0].(map[string]any)["signature"] != wantThinking["signature"] {
			t.Errorf("logged blocks = %v, want the thinking block with its signature", blocks)
		}
		if u := d["usage"].(map[string]any); u["cacheWriteTokens"] != float64(2048) || u["inputTokens"] != float64(472) {
			t.Errorf("logged usage = %v, want the cache write count", u)
		}
	}
	if !found {
		t.Error("no assistant/message of step 1 in the log")
	}
	// The built-in table prices the default model, cache writes included
	// ($2 input, $0.20 cache read, $2.50 cache write, $10 output).
	var want float64
	for _, ev := range evs {
		if ev["type"] == "assistant/message" {
			u := ev["data"].(map[string]any)["usage"].(map[string]any)
			n := func(k string) float64 { f, _ := u[k].(float64); return f }
			want += (2*n("inputTokens") + 0.2*n("cacheReadTokens") + 2.5*n("cacheWriteTokens") + 10*n("outputTokens")) / 1e6
		}
	}
	if u := rt.Usage(s, 0); !u.Priced || u.Size != 1_000_000 || math.Abs(u.Cost-want) > 1e-12 || u.Cost < 2048*2.5/1e6 {
		t.Errorf("usage = %+v, want priced at %v with a 1M window", u, want)
	}
	if strings.Contains(logs.String(), key) {
		t.Error("the API key is in the log output")
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
