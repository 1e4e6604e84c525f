package pluginapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// TestDescribeDeclaresPresentation: over the real gRPC path, Describe says
// which tools have a preview (from Tool.Preview, whatever the spec says)
// and carries their title templates.
func TestDescribeDeclaresPresentation(t *testing.T) {
	t.Parallel()
	run := func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
		return pluginapi.Result{Content: "ok"}, nil
	}
	schema := json.RawMessage(`{"type":"object"}`)
	p := pluginapi.Plugin{Name: "p", Version: "1", Tools: []pluginapi.Tool{
		// HasPreview set by hand without a Preview is not believed.
		{Spec: pluginapi.ToolSpec{Name: "plain", Schema: schema, Title: "Run {command}", HasPreview: true}, Run: run},
		{Spec: pluginapi.ToolSpec{Name: "shown", Schema: schema}, Run: run,
			Preview: func(context.Context, *pluginapi.Call) pluginapi.Meta { return pluginapi.Meta{Title: "x"} }},
	}}
	d, err := plugintest.Start(t, p).Describe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d.ProtocolMinor != pluginapi.ProtocolMinor {
		t.Errorf("minor %d", d.ProtocolMinor)
	}
	got := map[string]pluginapi.ToolSpec{}
	for _, s := range d.Tools {
		got[s.Name] = s
	}
	if s := got["plain"]; s.HasPreview || s.Title != "Run {command}" {
		t.Errorf("plain described as %+v, want no preview and its title", s)
	}
	if s := got["shown"]; !s.HasPreview || s.Title != "" {
		t.Errorf("shown described as %+v, want a preview and no title", s)
	}
}

func TestExpandTitle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ template, args, want string }{
		{"Update todo list", `{"todos":[]}`, "Update todo list"},
		{"{command}", `{"command":"  ls -la\n"}`, "ls -la"},
		{"Subagent: {description}", `{"description":"inspect","prompt":"p"}`, "Subagent: inspect"},
		{"{a} and {b}", `{"a":"x","b":"y"}`, "x and y"},
		{"Subagent: {description}", `{"prompt":"p"}`, ""},       // missing
		{"Subagent: {description}", `{"description":"  "}`, ""}, // blank
		{"{command}", `{"command":["ls"]}`, ""},                 // not a string
		{"{command}", `not json`, ""},                           // not an object
		{"{command}", `{"command":{"nested":"x"}}`, ""},         // only top-level strings
		{"a {} b { c } {x", `{"x":"no"}`, "a {} b { c } {x"},    // no names: as is
		{"{{command}}", `{"command":"ls"}`, "{ls}"},             // the inner braces name it
		{"", `{"command":"ls"}`, ""},
		{"{ünï}", `{"ünï":"x"}`, "{ünï}"}, // not a name
	} {
		if got := pluginapi.ExpandTitle(tc.template, json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("ExpandTitle(%q, %s) = %q, want %q", tc.template, tc.args, got, tc.want)
		}
	}
}

func FuzzExpandTitle(f *testing.F) {
	f.Add("Subagent: {description}", `{"description":"x"}`)
	f.Add("{a}{b}{", `{"a":"1"}`)
	f.Fuzz(func(t *testing.T, template, args string) {
		got := pluginapi.ExpandTitle(template, json.RawMessage(args))
		if !strings.Contains(template, "{") && got != template {
			t.Errorf("ExpandTitle(%q, %q) = %q: a template without a name changed", template, args, got)
		}
		if got != "" && !strings.HasPrefix(got, template[:strings.IndexByte(template+"{", '{')]) {
			t.Errorf("ExpandTitle(%q, %q) = %q: the text before the first name changed", template, args, got)
		}
	})
}

func TestTitleNamesSchemaProperties(t *testing.T) {
	t.Parallel()
	run := func(context.Context, *pluginapi.Call) (pluginapi.Result, error) { return pluginapi.Result{}, nil }
	schema := json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)
	for _, tc := range []struct {
		title  string
		schema json.RawMessage
		ok     bool
	}{
		{"{command}", schema, true},
		{"Run: {command} {}", schema, true},
		{"Update todo list", schema, true},
		{"{comand}", schema, false},
		{"{anything}", json.RawMessage(`{"type":"object"}`), true}, // no properties listed: not checked
	} {
		p := pluginapi.Plugin{Name: "p", Version: "1", Tools: []pluginapi.Tool{{Spec: pluginapi.ToolSpec{Name: "t", Schema: tc.schema, Title: tc.title}, Run: run}}}
		s, err := pluginapi.ServeInProcess(t.Context(), p, nil)
		if err == nil {
			s.Stop()
		}
		if (err == nil) != tc.ok {
			t.Errorf("title %q with schema %s: err %v, want ok %v", tc.title, tc.schema, err, tc.ok)
		}
	}
}
