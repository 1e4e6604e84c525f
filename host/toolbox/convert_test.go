package toolbox

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
)

// TestConvert: a call reaches the plugin with every field it has in the
// host's vocabulary, its sandbox included; a plugin's result and meta come
// back with every field.
func TestConvert(t *testing.T) {
	t.Parallel()
	c := tool.Call{SessionID: "s1", Caller: string(pluginapi.CallerAgent), Turn: 2, Step: 3, CallID: "c1", Name: "bash",
		Args: `{"command":"ls"}`, Cwd: "/w", Sandbox: &event.CallSandbox{Mode: "workspace-write", Network: "off",
			Roots: []string{"/w"}, DenyRead: []string{"/w/.env"}, PidsLimit: 64}}
	args := json.RawMessage(`{"command":"ls"}`)
	want := pluginapi.CallRequest{Tool: "bash", Args: args, SessionID: "s1", Caller: pluginapi.CallerAgent, Turn: 2,
		CallID: "c1", Cwd: "/w", Sandbox: &pluginapi.CallSandbox{Mode: "workspace-write", Network: "off",
			WritableRoots: []string{"/w"}, DenyRead: []string{"/w/.env"}, PidsLimit: 64}}
	if diff := cmp.Diff(want, toPlugin(c, args)); diff != "" {
		t.Errorf("toPlugin (-want +got):\n%s", diff)
	}
	if got := toPlugin(tool.Call{Name: "x"}, args); got.Sandbox != nil {
		t.Errorf("a call without a sandbox is sent one: %+v", got.Sandbox)
	}

	r := pluginapi.Result{Content: "done", IsError: true, Meta: pluginapi.Meta{Title: "Edit a.go",
		Locations: []pluginapi.Location{{Path: "/w/a.go", Line: 3}},
		Diffs:     []pluginapi.Diff{{Path: "/w/a.go", OldText: "a", NewText: "b", NewFile: true}}}}
	p, err := event.Propose("demo/note", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	events := []tool.Emitted{tool.Checked(p)}
	got := fromPlugin(r, events)
	wantRes := tool.Result{Content: "done", IsError: true, Events: events, Meta: tool.Meta{Title: "Edit a.go",
		Locations: []event.Location{{Path: "/w/a.go", Line: 3}},
		Diffs:     []event.Diff{{Path: "/w/a.go", OldText: "a", NewText: "b", NewFile: true}}}}
	if diff := cmp.Diff(wantRes, got, cmp.AllowUnexported(tool.Emitted{}, event.Proposed{})); diff != "" {
		t.Errorf("fromPlugin (-want +got):\n%s", diff)
	}
}
