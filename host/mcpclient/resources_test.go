package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-dev/harness/host/tool"
)

// TestContentAndResources runs mcptest -resources: a tools/call result's
// content of every kind is rendered (text as is, images as blocks named in
// the text, an embedded text resource as its text, an embedded image as
// an image, other blobs named by URI, type and size, a link naming
// mcp_read_resource), and resources/read goes through ReadResource with
// the same rendering; a server without resources offers none.
func TestContentAndResources(t *testing.T) {
	bin := testServer(t)
	set := Start([]ServerConfig{
		{Name: "res", Command: bin, Args: []string{"-resources"}, Source: "test"},
		{Name: "plain", Command: bin, Source: "test"},
	}, Options{Environ: os.Environ(), Cwd: t.TempDir()})
	defer set.Close()
	if got := set.ResourceServers(); !slices.Equal(got, []string{"res"}) {
		t.Fatalf("ResourceServers = %q, want [res]: plain offers none", got)
	}
	ctx := context.Background()

	r := set.Call(ctx, "mcp__res__content", nil)
	wantText := strings.Join([]string{
		"all kinds",
		"[resource link: test://note (note), text/plain; read it with mcp_read_resource]",
		"[resource: test://note, text/plain]\na note from mcptest",
		"[resource: test://picture, image/png]",
		"[image: image/png, 70 bytes]",
		"[resource: test://data, application/octet-stream, 300 bytes: binary content not shown]",
		"[image: image/png, 70 bytes]",
	}, "\n")
	if r.IsError || r.Content != wantText {
		t.Errorf("content = %q (isError %v), want\n%q", r.Content, r.IsError, wantText)
	}
	var images []tool.Block
	for _, b := range r.Blocks {
		if b.Kind == tool.BlockImage {
			images = append(images, b)
		}
	}
	if len(images) != 2 || images[0].URI != "test://picture" || images[1].URI != "" ||
		images[0].MIMEType != "image/png" || len(images[0].Data) != 70 || len(images[1].Data) != 70 {
		t.Errorf("image blocks %+v, want the embedded picture and the image content, 70 bytes each", images)
	}

	reads := []struct {
		args, want string
		images     int
		isError    bool
	}{
		{`{"server":"res","uri":"test://note"}`, "[resource: test://note, text/plain]\na note from mcptest", 0, false},
		{`{"server":"res","uri":"test://picture"}`, "[resource: test://picture, image/png]\n[image: image/png, 70 bytes]", 1, false},
		{`{"server":"res","uri":"test://data"}`, "[resource: test://data, application/octet-stream, 300 bytes: binary content not shown]", 0, false},
		{`{"server":"res","uri":"test://missing"}`, "MCP server res could not read test://missing: ", 0, true},
		{`{"server":"plain","uri":"test://note"}`, "no MCP server plain with resources in this session; servers with resources: res", 0, true},
		{`{"server":"res"}`, "give both server and uri", 0, true},
		{`[]`, "arguments are not a JSON object with server and uri: ", 0, true},
	}
	for _, c := range reads {
		r := set.ReadResource(ctx, json.RawMessage(c.args))
		n := 0
		for _, b := range r.Blocks {
			if b.Kind == tool.BlockImage && len(b.Data) > 0 {
				n++
			}
		}
		if !strings.HasPrefix(r.Content, c.want) || r.IsError != c.isError || n != c.images {
			t.Errorf("ReadResource(%s) = %q, isError %v, %d images; want %q…, %v, %d", c.args, r.Content, r.IsError, n, c.want, c.isError, c.images)
		}
	}

	spec := ReadResourceSpec(set.ResourceServers())
	if spec.Spec.Name != ReadResourceTool || spec.Kind != "read" || !spec.NeedsPermission || spec.MCP != nil ||
		!strings.Contains(string(spec.Spec.Parameters), `"enum":["res"]`) {
		t.Errorf("ReadResourceSpec = %+v", spec)
	}
}

// TestRenderEdges: images the providers refuse (a type they do not take,
// more than MaxImageBytes) and audio are named in the text, never passed
// as blocks; structured content is JSON when nothing else came; text
// alone has no blocks.
func TestRenderEdges(t *testing.T) {
	for _, c := range []struct {
		name   string
		res    *mcp.CallToolResult
		want   string
		blocks int
	}{
		{"svg", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/svg+xml", Data: []byte("<svg/>")}}},
			"[image: image/svg+xml, 6 bytes: not a type models take (PNG, JPEG, GIF, WebP)]", 0},
		{"large", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, MaxImageBytes+1)}}},
			"[image: image/png, 5242881 bytes: larger than the 5 MB models take]", 0},
		{"audio", &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")}}},
			"[audio: audio/wav, 4 bytes: not passed on]", 0},
		{"structured", &mcp.CallToolResult{StructuredContent: map[string]int{"n": 1}}, `{"n":1}`, 0},
		{"text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}, "a\nb", 0},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/webp", Data: []byte("RIFFxxxxWEBP")}}},
			"[image: image/webp, 12 bytes]", 1},
	} {
		text, bs := renderContent(c.res)
		n := 0
		for _, b := range bs {
			if b.Kind == tool.BlockImage {
				n++
			}
		}
		if text != c.want || n != c.blocks {
			t.Errorf("%s: %q with %d image blocks, want %q with %d", c.name, text, n, c.want, c.blocks)
		}
	}
}

func TestReadResourceTitle(t *testing.T) {
	for args, want := range map[string]string{
		`{"server":"everything","uri":"demo://x"}`: "everything: read demo://x",
		`{"server":"everything"}`:                  "MCP: read resource",
		`not json`:                                 "MCP: read resource",
	} {
		if got := ReadResourceTitle(args); got != want {
			t.Errorf("ReadResourceTitle(%s) = %q, want %q", args, got, want)
		}
	}
}
