package toolbox

import (
	"encoding/json"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
)

// TestRegistryKinds: the listing carries each tool's declared kind; an
// unknown one lists as other, none as none.
func TestRegistryKinds(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object"}`)
	p := &plugin{desc: pluginapi.Description{Name: "p", Tools: []pluginapi.ToolSpec{
		{Name: "a", Schema: schema, Kind: "edit"},
		{Name: "b", Schema: schema, Kind: "teleport"},
		{Name: "c", Schema: schema},
	}}}
	r := newRegistry([]member{{plug: p, inst: &instance{}}}, nil)
	got := map[string]string{}
	for _, tool := range r.list {
		got[tool.Spec.Name] = tool.Kind
	}
	want := map[string]string{"a": "edit", "b": "other", "c": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("tool %s: kind %q, want %q", k, got[k], v)
		}
	}
}
