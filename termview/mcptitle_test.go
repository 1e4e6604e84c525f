package termview

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
)

// TestTermAskerMCPTitle: the question about an MCP call names it by its
// title ("server: title", permission.Request.Title as the engine sets it
// from the tool's) on a line of its own, then shows the raw name the
// model called with its arguments, and an "always" covers that name.
func TestTermAskerMCPTitle(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	a := &Asker{view: New(&out, emptySource{}, false), in: strings.NewReader("y\n")}
	got, err := a.Ask(context.Background(), permission.Request{Tool: "mcp__filesystem__write_file", Title: "filesystem: Write File",
		Args: json.RawMessage(`{"path": "/tmp/x", "content": "hi"}`)})
	if err != nil || got != event.AllowOnce {
		t.Fatalf("Ask = %q, %v; want allow once", got, err)
	}
	want := "filesystem: Write File\n    mcp__filesystem__write_file {\"path\":\"/tmp/x\",\"content\":\"hi\"}\nAllow it? [y]es / [n]o / [a]lways for mcp__filesystem__write_file: "
	if !strings.Contains(out.String(), want) {
		t.Errorf("question = %q, want %q", out.String(), want)
	}
}
