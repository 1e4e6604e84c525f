package main

import (
	"context"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/llm/script"
)

// TestSystemPromptNamesTools runs the real loop with the real plugins and
// checks what the model receives: every request's system prompt names
// every tool sent with it, and with no tools says there are none.
func TestSystemPromptNamesTools(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		plugins   string // plugin dir; "" = an empty one
		wantTools bool
	}{
		"real plugins": {plugins: testPlugins(t), wantTools: true},
		"no plugins":   {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lines := []string{`{"text":"done"}`}
			if tc.wantTools {
				lines = []string{todoLine("w1", `[{"content":"a","status":"in_progress"}]`), `{"text":"done","expect":{"lastRole":"tool"}}`}
			}
			model, err := script.Load(strings.NewReader(strings.Join(lines, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			dir := tc.plugins
			if dir == "" {
				dir = t.TempDir()
			}
			h, s, stderr := termSession(t, dir, model)
			if code, err := h.term.Turn(context.Background(), h.Runtime, s, "go"); code != exitOK {
				t.Fatalf("turn: %d %v\n%s", code, err, stderr.String())
			}
			reqs := model.Requests()
			if len(reqs) != len(lines) {
				t.Fatalf("%d requests, want %d", len(reqs), len(lines))
			}
			for i, req := range reqs {
				toolsLine := ""
				for _, l := range strings.Split(req.System, "\n") {
					if strings.HasPrefix(l, "- Tools: ") {
						toolsLine = l
					}
				}
				if tc.wantTools != (len(req.Tools) > 0) {
					t.Fatalf("request %d: %d tools sent", i, len(req.Tools))
				}
				if len(req.Tools) == 0 {
					if !strings.Contains(toolsLine, "none are available") || strings.Contains(req.System, "todo_write") {
						t.Errorf("request %d has no tools, but its prompt says %q and mentions todo_write: %v", i, toolsLine, strings.Contains(req.System, "todo_write"))
					}
					continue
				}
				named := map[string]bool{}
				for _, n := range strings.Split(strings.TrimPrefix(toolsLine, "- Tools: "), ", ") {
					named[n] = true
				}
				for _, tool := range req.Tools {
					if !named[tool.Name] {
						t.Errorf("request %d sends %s, its prompt's tools line is %q", i, tool.Name, toolsLine)
					}
				}
				if len(named) != len(req.Tools) {
					t.Errorf("request %d sends %d tools, its prompt names %d: %q", i, len(req.Tools), len(named), toolsLine)
				}
			}
		})
	}
}
