package termview

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/harness-dev/harness/engine"
)

func TestTermElicit(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","required":["color"],"properties":{
		"color":{"type":"string","enum":["red","teal"]},
		"count":{"type":"integer","description":"how many"},
		"sure":{"type":"boolean"},
		"tags":{"type":"array","items":{"enum":["a","b"]}}}}`)
	tests := map[string]struct {
		input  string
		action string
		want   map[string]any
	}{
		"all":              {"teal\n3\ny\na, b\n", "accept", map[string]any{"color": "teal", "count": int64(3), "sure": true, "tags": []string{"a", "b"}}},
		"optional skipped": {"red\n\n\n\n", "accept", map[string]any{"color": "red"}},
		"asks again":       {"blue\nred\nx\n2\nmaybe\nn\nc\n\n", "accept", map[string]any{"color": "red", "count": int64(2), "sure": false}},
		"required empty":   {"\n", "decline", nil},
		"end of input":     {"", "decline", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			a := &Asker{view: New(&out, emptySource{}, false), in: strings.NewReader(tc.input)}
			got, err := a.Elicit(context.Background(), "c1", engine.MCPElicitRequest{Server: "srv", Message: "Pick\x1b[2J one", Schema: schema})
			if err != nil || got.Action != tc.action || (tc.want != nil && !reflect.DeepEqual(got.Content, tc.want)) {
				t.Errorf("Elicit = %+v, %v; want %s %v", got, err, tc.action, tc.want)
			}
			if s := out.String(); !strings.Contains(s, "MCP server srv asks: ") || strings.Contains(s, "\x1b[2J") ||
				!strings.Contains(s, "color (one of red, teal):") {
				t.Errorf("shown: %q", s)
			}
		})
	}
}

// FuzzElicitField: any schema field and line give a value of the field's
// type or an error, never a panic.
func FuzzElicitField(f *testing.F) {
	f.Add(`{"type":"integer"}`, "42")
	f.Add(`{"type":"string","enum":["a","b"]}`, "c")
	f.Add(`{"type":"array","items":{"enum":["x"]}}`, "x, y")
	f.Add(`{"type":"boolean"}`, "YES")
	f.Fuzz(func(t *testing.T, field, line string) {
		var fl elicitField
		if json.Unmarshal([]byte(field), &fl) != nil {
			return
		}
		v, err := fieldValue(fl, line)
		if err != nil {
			return
		}
		switch fl.Type {
		case "integer":
			if _, ok := v.(int64); !ok {
				t.Errorf("integer field gave %T", v)
			}
		case "boolean":
			if _, ok := v.(bool); !ok {
				t.Errorf("boolean field gave %T", v)
			}
		}
		_ = fieldQuestion("n", fl, true)
	})
}
