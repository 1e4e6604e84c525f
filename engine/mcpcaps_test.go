//go:build unix

package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/internal/logtest"
)

// elicitingAsker allows every call, answers MCP questions with answer
// and records both.
type elicitingAsker struct {
	recordingAsker
	mu        sync.Mutex
	answer    engine.MCPElicitResult
	questions []string // callID: message
}

func (a *elicitingAsker) Elicit(_ context.Context, callID string, req engine.MCPElicitRequest) (engine.MCPElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.questions = append(a.questions, callID+": "+req.Message)
	return a.answer, nil
}

// TestMCPCapabilitiesInTheLoop runs the real loop with the script
// provider against mcptest: /caps:greet runs the server's prompt (its
// image named in text for a model that takes none); the server's
// instructions are in every request's system prompt; ask's question
// reaches the turn's front end with the call's id and its answer the
// server; sample, allowed by its entry, is asked about and served by the
// session's model (the script's next answer); roots are the session's
// folder and the folders it added, updated when they change.
func TestMCPCapabilitiesInTheLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	const instr = "# Instructions from MCP server caps:\nBe terse.\n"
	lines := []string{
		`{"text":"hello","expect":{"lastContains":"Say hello to Ada Lovelace","contains":["[an image/png image of /caps:greet left out: model script takes no images]"],"systemContains":[` + jsonString(instr) + `]}}`,
		`{"toolCalls":[{"id":"c_ask","name":"mcp__caps__ask","args":{}},{"id":"c_roots","name":"mcp__caps__roots","args":{}},{"id":"c_sample","name":"mcp__caps__sample","args":{"text":"2+2?"}}],"expect":{"lastContains":"use the server"}}`,
		`{"text":"four","expect":{"lastContains":"2+2?","systemContains":["be brief"]}}`,
		`{"text":"done","expect":{"lastRole":"tool","systemContains":[` + jsonString(instr) + `]}}`,
	}
	sc, err := script.Load(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	var logBuf logtest.Buffer
	h, err := engine.New(engine.Config{StateDir: state, Model: sc, ModelName: "script", MaxSteps: 10,
		Policy: permission.Policy{Mode: permission.ModeAsk},
		Logger: hclog.New(&hclog.LoggerOptions{Output: &logBuf, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	cwd := t.TempDir()
	s, err := h.CreateSession(cwd)
	if err != nil {
		t.Fatal(err)
	}
	h.ConnectMCP(s, []engine.MCPServer{{Name: "caps", Command: bin, Args: []string{"-instructions", "Be terse."}, Sampling: true, Source: "/the/test/mcp.json"}})
	if len(h.MCPTools(s.ID())) == 0 {
		t.Fatalf("no MCP tools; log:\n%s", logBuf.String())
	}
	added := t.TempDir()
	if err := h.SetSessionDirs(s, []string{added}); err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, p := range h.MCPPrompts(s.ID()) {
		cmds = append(cmds, p.Command())
	}
	if strings.Join(cmds, " ") != "caps:greet caps:recap" {
		t.Errorf("MCP prompts = %v", cmds)
	}

	asker := &elicitingAsker{answer: engine.MCPElicitResult{Action: mcpclient.ActionAccept, Content: map[string]any{"color": "teal"}}}
	if out := h.Prompt(context.Background(), s, nil, event.Text("/caps:greet Ada Lovelace"), nil, asker); out.Reason != event.ReasonCompleted {
		t.Fatalf("/caps:greet ended %s: %v\n%s", out.Reason, out.Err, logBuf.String())
	}
	if out := h.Prompt(context.Background(), s, nil, event.Text("/caps:greet"), nil, asker); out.Err == nil || !strings.Contains(out.Err.Error(), "/caps:greet needs name") {
		t.Errorf("/caps:greet without its argument: %v, want the line naming it", out.Err)
	}
	if out := h.Run(context.Background(), s, nil, event.Text("use the server"), nil, asker); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v\n%s", out.Reason, out.Err, logBuf.String())
	}

	if len(asker.questions) != 1 || asker.questions[0] != "c_ask: Your favourite color?" {
		t.Errorf("questions = %q, want ask's, with its call", asker.questions)
	}
	if !contains(asker.tools, "mcp__caps__sampling") {
		t.Errorf("asked about %v, want the sampling asked about", asker.tools)
	}
	evs, _ := logtest.ReadLog(t, state)
	results := map[string]string{}
	for _, e := range evs {
		if d, _ := e["data"].(map[string]any); e["type"] == "tool/result" {
			results[d["callId"].(string)], _ = d["content"].(string)
		}
	}
	want := map[string]string{
		"c_ask":    `action accept content {"color":"teal"}`,
		"c_roots":  "roots (1 changes): file://" + filepath.ToSlash(cwd) + " file://" + filepath.ToSlash(added),
		"c_sample": "model script said: four",
	}
	for id, w := range want {
		if results[id] != w {
			t.Errorf("result %s = %q, want %q", id, results[id], w)
		}
	}
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestMCPSubagentQuestion: an MCP server's question during a subagent
// child's call goes to the parent turn's front end, on the parent's
// subagent call (the one its editor shows).
func TestMCPSubagentQuestion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	sc, err := script.Load(strings.NewReader(strings.Join([]string{
		`{"toolCalls":[{"id":"p1","name":"subagent","args":{"description":"ask","prompt":"ask the user"}}]}`,
		`{"toolCalls":[{"id":"k1","name":"mcp__caps__ask","args":{}}]}`,
		`{"text":"child done","expect":{"lastRole":"tool","lastContains":"action accept content {\"color\":\"red\"}"}}`,
		`{"text":"done","expect":{"lastRole":"tool","lastContains":"child done"}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	var logBuf logtest.Buffer
	h, err := engine.New(engine.Config{StateDir: t.TempDir(), PluginDirs: []string{pluginDir}, Model: sc, ModelName: "script", MaxSteps: 10,
		SubagentDepth: 1, SubagentBudget: subagent.Budget{Steps: 10, Wall: time.Minute}, Policy: permission.Policy{Mode: permission.ModeAllowAll},
		Logger: hclog.New(&hclog.LoggerOptions{Output: &logBuf, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.StartTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, err := h.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(s)
	h.ConnectMCP(s, []engine.MCPServer{{Name: "caps", Command: bin}})
	asker := &elicitingAsker{answer: engine.MCPElicitResult{Action: mcpclient.ActionAccept, Content: map[string]any{"color": "red"}}}
	if out := h.Run(context.Background(), s, nil, event.Text("delegate"), nil, asker); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v\n%s", out.Reason, out.Err, logBuf.String())
	}
	if len(asker.questions) != 1 || asker.questions[0] != "p1: Your favourite color?" {
		t.Errorf("questions = %q, want ask's on the parent's call p1", asker.questions)
	}
}
