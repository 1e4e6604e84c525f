//go:build unix

package engine_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/internal/logtest"
)

// TestMCPContentInTheLoop runs the real loop with the script provider
// against mcptest -resources: mcp_read_resource is offered; the images of
// an MCP tool's result and of a resource it reads reach a model that takes
// images as image parts of the tool messages, named in their text; the
// log holds their hashes and the blobs their bytes; after a switch to a
// model without images the requests carry none and each note says the
// model does not take images; mcp_read_resource, a read, is not asked
// about in ask mode; a reopened session's history has the images again.
func TestMCPContentInTheLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	sc, err := script.Load(strings.NewReader(strings.Join([]string{
		`{"toolCalls":[{"id":"c1","name":"mcp__test__content","args":{}}],"expect":{"toolsInclude":["mcp_read_resource","mcp__test__content"]}}`,
		`{"toolCalls":[{"id":"c2","name":"mcp_read_resource","args":{"server":"test","uri":"test://picture"}}],"expect":{"lastRole":"tool","images":2}}`,
		`{"text":"seen","expect":{"lastRole":"tool","lastContains":"[image: image/png, 70 bytes]","images":3}}`,
		`{"text":"in words","expect":{"model":"text","images":0,"contains":["[image: image/png, 70 bytes — the model does not take images]"]}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	models := []llm.ModelInfo{{Provider: "script", Name: "vision", Images: true}, {Provider: "script", Name: "text"}}
	h, err := engine.New(engine.Config{StateDir: state, Model: sc, ModelName: "vision", Models: models, MaxSteps: 10,
		Policy: permission.Policy{Mode: permission.ModeAsk}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.ConnectMCP(s, []engine.MCPServer{{Name: "test", Command: bin, Args: []string{"-resources"}}})
	asker := &recordingAsker{}
	if out := h.Run(context.Background(), s, nil, event.Text("look"), nil, asker); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 1 ended %s: %v", out.Reason, out.Err)
	}
	if !slices.Equal(asker.tools, []string{"mcp__test__content"}) {
		t.Errorf("asked about %q, want mcp__test__content alone (mcp_read_resource is a read)", asker.tools)
	}
	reqs := sc.Requests()
	toolMsg := func(req llm.Request, id string) llm.Message {
		for _, m := range req.Messages {
			if m.Role == llm.RoleTool && m.ToolCallID == id {
				return m
			}
		}
		t.Fatalf("no tool message %s in the request", id)
		return llm.Message{}
	}
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	for _, c := range []struct {
		req    int
		id     string
		images int
	}{{1, "c1", 2}, {2, "c1", 2}, {2, "c2", 1}} {
		m := toolMsg(reqs[c.req], c.id)
		if len(m.Images) != c.images || strings.Contains(m.Text, "does not take") {
			t.Fatalf("request %d, result %s: %d images, text %q; want %d images", c.req, c.id, len(m.Images), m.Text, c.images)
		}
		for _, img := range m.Images {
			if img.MimeType != "image/png" || string(img.Data) != string(png) {
				t.Errorf("request %d, result %s: image %s of %d bytes, want the 1×1 PNG", c.req, c.id, img.MimeType, len(img.Data))
			}
		}
	}

	// the log: hashes, never bytes; the blob holds the bytes
	evs, logPath := logtest.ReadLog(t, state)
	var logged []any
	for _, e := range evs {
		if d, _ := e["data"].(map[string]any); e["type"] == "tool/result" && d["callId"] == "c1" {
			logged, _ = d["images"].([]any)
		}
	}
	if len(logged) != 2 {
		t.Fatalf("tool/result c1 logs images %v, want 2", logged)
	}
	first, _ := logged[0].(map[string]any)
	hash, _ := first["blob"].(string)
	if first["type"] != "image" || first["mimeType"] != "image/png" || first["uri"] != "test://picture" || len(hash) != 64 {
		t.Errorf("logged image %v, want type image, image/png, test://picture and a hash", first)
	}
	if b, err := os.ReadFile(filepath.Join(state, "sessions", s.ID()+".blobs", hash)); err != nil || string(b) != string(png) {
		t.Errorf("blob %s: %v", hash, err)
	}
	if raw, _ := os.ReadFile(logPath); strings.Contains(string(raw), base64.StdEncoding.EncodeToString(png)) {
		t.Errorf("the log holds the image's bytes")
	}

	// a model without images: no image parts, notes that say so
	if err := h.SetOption(s, "model", "text"); err != nil {
		t.Fatal(err)
	}
	if out := h.Run(context.Background(), s, nil, event.Text("and now?"), nil, asker); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 2 ended %s: %v", out.Reason, out.Err)
	}
	last := sc.Requests()[3]
	for _, m := range last.Messages {
		if len(m.Images) > 0 {
			t.Errorf("a %s message carries images for a model without image input", m.Role)
		}
	}
	if m := toolMsg(last, "c1"); strings.Count(m.Text, "— the model does not take images]") != 2 {
		t.Errorf("c1 for the text model: %q, want both images noted as not taken", m.Text)
	}

	// reopened: the history loads the images from the blobs
	id := s.ID()
	if err := h.CloseSession(s); err != nil {
		t.Fatal(err)
	}
	s, err = h.OpenSession(id)
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(s)
	n := 0
	for _, m := range s.Messages() {
		if m.Role == llm.RoleTool {
			n += len(m.Images)
		}
	}
	if n != 3 {
		t.Errorf("the reopened session's tool results carry %d images, want 3", n)
	}
}
