//go:build unix

package engine_test

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/internal/logtest"
	"github.com/harness-dev/harness/termview"
)

// titleAsker allows every call and records each question's tool and
// title.
type titleAsker struct {
	mu    sync.Mutex
	asked []string
}

func (a *titleAsker) Ask(_ context.Context, req permission.Request) (event.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req.Tool+" titled "+strconv.Quote(req.Title))
	return event.AllowOnce, nil
}

// lateModel plays a script loaded once the session exists (its lines name
// the session's folder).
type lateModel struct{ p *script.Provider }

func (m *lateModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return m.p.Stream(ctx, req)
}

// TestMCPResultSpilled runs the real loop with the script provider, the
// real plugins and a real MCP server whose tool answers 5 MB of text: the
// model gets at most 30,000 characters, the result's start and end and
// the spill file's path (so does the log, which the editor is shown);
// the model then reads the file's last line with the real read tool,
// which reaches the session's folder without asking (ask mode: only the
// MCP call is asked about, titled as its server and tool, "test: big",
// with the raw name as the request's tool).
func TestMCPResultSpilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	state := t.TempDir()
	model := &lateModel{}
	h, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{pluginDir}, Model: model, ModelName: "script",
		Policy: permission.Policy{Mode: permission.ModeAsk}})
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
	h.ConnectMCP(s, []engine.MCPServer{{Name: "test", Command: bin}})
	const size = 5_000_000
	spill := filepath.Join(state, "sessions", s.ID(), "mcp-1-1-big.txt")
	// mcptest's big: lines of 108 bytes; the last, cut short, ends "pqrsEND"
	lastLine := (size + 107) / 108
	model.p, err = script.Load(strings.NewReader(strings.Join([]string{
		fmt.Sprintf(`{"toolCalls":[{"id":"big","name":"mcp__test__big","args":{"bytes":%d}}]}`, size),
		fmt.Sprintf(`{"toolCalls":[{"id":"r","name":"read","args":{"file_path":%q,"offset":%d,"limit":1}}],"expect":{"lastRole":"tool","lastContains":%q,"maxTokens":20000}}`,
			spill, lastLine, spill),
		`{"text":"done","expect":{"lastRole":"tool","lastContains":"pqrsEND"}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	asker := &titleAsker{}
	if out := h.Run(context.Background(), s, nil, event.Text("get it"), nil, asker); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v", out.Reason, out.Err)
	}
	if want := `[mcp__test__big titled "test: big"]`; fmt.Sprint(asker.asked) != want {
		t.Errorf("asked %v, want %s: only the MCP call (the read of the spill file is in the project), by its title", asker.asked, want)
	}
	evs, _ := logtest.ReadLog(t, state)
	var result string
	for _, e := range evs {
		if d, _ := e["data"].(map[string]any); e["type"] == "tool/result" && d["callId"] == "big" {
			result, _ = d["content"].(string)
		}
	}
	if n := utf8.RuneCountInString(result); n > 30_000 || !strings.HasPrefix(result, "BEGIN") || !strings.HasSuffix(result, "END") ||
		!strings.Contains(result, spill+" (5,000,000 bytes;") {
		t.Errorf("the logged result: %d characters, %q … %q; want at most 30,000 with its start, its end and %s", n,
			result[:min(len(result), 40)], result[max(len(result)-40, 0):], spill)
	}
	b, err := os.ReadFile(spill)
	if err != nil || len(b) != size {
		t.Errorf("spill file: %d bytes, %v; want %d", len(b), err, size)
	}
}

// releasingView is the terminal's view, which writes the file release
// once the call's live output holds want.
type releasingView struct {
	*termview.View
	mu            sync.Mutex
	seen          strings.Builder
	want, release string
}

func (v *releasingView) ToolProgress(sid, callID, text string) {
	v.View.ToolProgress(sid, callID, text)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.seen.WriteString(text)
	if strings.Contains(v.seen.String(), v.want) {
		_ = os.WriteFile(v.release, nil, 0o600)
	}
}

// TestMCPProgressOnTerminal runs the real loop against a real MCP server
// whose tool sends notifications/progress, then waits to answer until
// the terminal's view has shown them (its release file): the lines reach
// the view's live output, dimmed and indented under the call, while the
// call runs. The call can only end once they did.
func TestMCPProgressOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	release := filepath.Join(t.TempDir(), "release")
	sc, err := script.Load(strings.NewReader(strings.Join([]string{
		fmt.Sprintf(`{"toolCalls":[{"id":"p","name":"mcp__test__progress","args":{"steps":2,"release":%q}}]}`, release),
		`{"text":"done","expect":{"lastRole":"tool","lastContains":"done after 2 steps"}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	h, err := engine.New(engine.Config{StateDir: t.TempDir(), Model: sc, ModelName: "script", Policy: permission.Policy{Mode: permission.ModeAllowAll}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(s)
	h.ConnectMCP(s, []engine.MCPServer{{Name: "test", Command: bin}})
	var out logtest.Buffer
	view := &releasingView{View: termview.New(&out, s, false), want: "step 2 (2/2)\n", release: release}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if o := h.Run(ctx, s, nil, event.Text("go"), view, nil); o.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v\n%s", o.Reason, o.Err, out.String())
	}
	if want := "    step 1 (1/2)\n    step 2 (2/2)\n"; !strings.Contains(out.String(), want) {
		t.Errorf("the view shows %q, want the progress lines %q", out.String(), want)
	}
}
