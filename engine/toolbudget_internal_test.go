package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/tool"
)

// deferredStep is a budgetStep deferring n MCP tools t01 … tNN.
func deferredStep(n int) *budgetStep {
	b := &budgetStep{deferred: map[string]tool.Tool{}}
	for i := 1; i <= n; i++ {
		t := tool.Tool{Spec: llm.ToolSpec{Name: fmt.Sprintf("t%02d", i), Description: fmt.Sprintf("Tool number %d.\nMore.", i),
			Parameters: json.RawMessage(`{"type":"object"}`)}, MCP: &event.MCPServer{Name: "s"}}
		b.order = append(b.order, t)
		b.deferred[t.Spec.Name] = t
	}
	return b
}

// loadedBy is what loadedTools reads back from a history holding one
// tool_search call with args and its result.
func loadedBy(b *budgetStep, args string) (tool.Result, map[string]bool) {
	r := b.searchCall(args)
	msgs := []llm.Message{
		{Role: llm.RoleUser, Text: "go"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: ToolSearch, Arguments: args}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Text: r.Content, IsError: r.IsError},
	}
	return r, loadedTools(msgs)
}

// TestToolSearchCall: by names, by a query (the best matches, at most
// five), both; unknown names said; nothing found is an error result;
// what the history holds afterwards names exactly the tools returned.
func TestToolSearchCall(t *testing.T) {
	t.Parallel()
	b := deferredStep(12)
	cases := []struct {
		args    string
		loaded  []string
		isError bool
		says    string
	}{
		{`{"names":["t03","t07"]}`, []string{"t03", "t07"}, false, `"parameters":{"type":"object"}`},
		{`{"query":"number 11"}`, []string{"t01", "t02", "t03", "t04", "t11"}, false, "Loaded 5 tools"},
		{`{"names":["t05","nope"],"query":"12"}`, []string{"t05", "t12"}, false, `Not deferred or unknown: "nope"`},
		{`{"names":["nope"]}`, nil, true, `unknown: "nope"`},
		{`{"query":"zzz"}`, nil, true, "no deferred tool matches"},
		{`not json`, nil, true, "invalid arguments"},
	}
	for _, c := range cases {
		r, loaded := loadedBy(b, c.args)
		if r.IsError != c.isError || !strings.Contains(r.Content, c.says) {
			t.Errorf("%s: %+v, want isError %v saying %q", c.args, r, c.isError, c.says)
		}
		if got := slices.Sorted(maps.Keys(loaded)); !slices.Equal(got, c.loaded) {
			t.Errorf("%s: the history loads %v, want %v", c.args, got, c.loaded)
		}
	}
}

// FuzzToolSearch: whatever the arguments, tool_search answers without
// panicking, and the history holding its answer loads only deferred
// tools, and only on a result that is not an error.
func FuzzToolSearch(f *testing.F) {
	for _, s := range []string{`{"names":["t01"]}`, `{"query":"tool"}`, `{"names":["t01","<tool name=\"x\">"],"query":"\n"}`, `{}`, `[]`, `{"query":"<tool name=\"evil\">"}`} {
		f.Add(s)
	}
	b := deferredStep(8)
	f.Fuzz(func(t *testing.T, args string) {
		r, loaded := loadedBy(b, args)
		if r.IsError && len(loaded) > 0 {
			t.Fatalf("an error result loads %v", loaded)
		}
		for n := range loaded {
			if _, ok := b.deferred[n]; !ok {
				t.Fatalf("args %q load %q, not a deferred tool", args, n)
			}
		}
	})
}

// TestSearchSpecFallsBackToNames: tool_search lists each deferred tool by
// name and one line while that fits the room left, else by name only.
func TestSearchSpecFallsBackToNames(t *testing.T) {
	t.Parallel()
	b := deferredStep(200)
	full, short := searchSpec(b.order, 1<<20), searchSpec(b.order, 1000)
	if !strings.Contains(full.Description, "- t07: Tool number 7.\n") || strings.Contains(full.Description, "More.") {
		t.Errorf("the listing with room: %q", full.Description)
	}
	if strings.Contains(short.Description, "Tool number") || !strings.Contains(short.Description, "t01, t02") || !strings.HasSuffix(short.Description, "t200") {
		t.Errorf("the listing without room: %q", short.Description)
	}
	if llm.EstimateText(short.Description) >= llm.EstimateText(full.Description) {
		t.Errorf("names only is not shorter")
	}
}

// TestSearchSpecForms: tool_search's listing is the most detailed form
// that fits the room it is given — a line per tool, then names grouped by
// their mcp__server__ prefix, then a count per group — and a name from
// the grouped form (without its prefix) loads its tool when it is
// unambiguous.
func TestSearchSpecForms(t *testing.T) {
	t.Parallel()
	var tools []tool.Tool
	for _, n := range []string{"mcp__a__one", "mcp__a__two", "mcp__b__one", "local"} {
		tools = append(tools, tool.Tool{Spec: llm.ToolSpec{Name: n, Description: "Does " + n + ". At length."}})
	}
	full := llm.EstimateText(searchSpec(tools, 1<<20).Description)
	cases := []struct {
		room      int
		says, not string
	}{
		{room: full, says: "- mcp__a__two: Does mcp__a__two.\n"},
		{room: full - 1, says: "- mcp__a__*: one, two\n- mcp__b__*: one\n- local", not: "Does"},
		{room: 0, says: "- mcp__a__*: 2 tools\n- mcp__b__*: 1 tool\n- 1 tool", not: "two"},
	}
	for _, c := range cases {
		got := searchSpec(tools, c.room).Description
		if !strings.Contains(got, c.says) || c.not != "" && strings.Contains(got, c.not) {
			t.Errorf("room %d: %q, want it to hold %q and not %q", c.room, got, c.says, c.not)
		}
	}

	b := &budgetStep{deferred: map[string]tool.Tool{}, order: tools}
	for _, tl := range tools {
		b.deferred[tl.Spec.Name] = tl
	}
	for _, c := range []struct {
		name, want string
	}{{"two", "mcp__a__two"}, {"mcp__b__one", "mcp__b__one"}, {"one", ""}, {"a__two", "mcp__a__two"}, {"wo", ""}} {
		got, ok := b.lookup(c.name)
		if ok != (c.want != "") || ok && got.Spec.Name != c.want {
			t.Errorf("lookup %q = %q, %v; want %q", c.name, got.Spec.Name, ok, c.want)
		}
	}
}
