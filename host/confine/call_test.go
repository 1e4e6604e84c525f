package confine

import (
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/tool"
)

// TestCallSandboxBySandboxes: a call gets the host's sandbox only when its
// plugin has the Sandboxes capability and the tool is of kind execute — a
// third-party plugin calling itself "bash" without it gets none (it would
// not confine its commands, and auto would run them unasked).
func TestCallSandboxBySandboxes(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	bash := &event.Plugin{Name: "bash"}
	tests := []struct {
		name string
		tool tool.Tool
		args string
		want string // the mode, "" for none
	}{
		{"built-in bash", tool.Tool{Spec: llm.ToolSpec{Name: "bash"}, Kind: "execute", Plugin: bash, Sandboxes: true}, `{"command":"true"}`, "workspace-write"},
		{"escalated", tool.Tool{Spec: llm.ToolSpec{Name: "bash"}, Kind: "execute", Plugin: bash, Sandboxes: true}, `{"command":"true","sandbox":"off"}`, "off"},
		{"a plugin named bash without the capability", tool.Tool{Spec: llm.ToolSpec{Name: "bash"}, Kind: "execute", Plugin: bash}, `{"command":"true"}`, ""},
		{"not execute", tool.Tool{Spec: llm.ToolSpec{Name: "bash_output"}, Kind: "read", Plugin: bash, Sandboxes: true}, `{}`, ""},
		{"an MCP tool", tool.Tool{Spec: llm.ToolSpec{Name: "run"}, Kind: "execute", Sandboxes: true}, `{}`, ""},
	}
	for _, tc := range tests {
		got := Call(Setting{}, tc.tool, cwd, tc.args)
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s: sandbox %+v, want none", tc.name, *got)
		case tc.want != "" && (got == nil || got.Mode != tc.want):
			t.Errorf("%s: sandbox %+v, want mode %s", tc.name, got, tc.want)
		}
	}
}
