package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/tool"
)

// MaxImageBytes bounds an image passed on as an image: a larger one is
// named in the text alone (the providers refuse images above 5 MB).
const MaxImageBytes = 5 << 20

// ReadResourceTool is the name of the tool that reads an MCP server's
// resource (Set.ReadResource).
const ReadResourceTool = "mcp_read_resource"

// render turns a tools/call result into the text the model reads and the
// blocks beside it. Text content is passed as it is; an image the model
// may be sent (llm.ImageType, at most MaxImageBytes) becomes an
// image block, named in the text where it came by llm.ImageNote; an
// embedded text resource is its text under a line naming its URI; an
// embedded blob is an image like an image when it is one, else a line
// naming URI, type and size; a resource link is a line naming its URI and
// mcp_read_resource, which reads it; audio is a line naming its type and
// size. Structured content is JSON when nothing else came.
func render(res *mcp.CallToolResult) string {
	text, _ := renderContent(res)
	return text
}

// blocks is a tools/call result's content as the host's content blocks,
// nil when it is text alone (Content says it all); see render.
func blocks(res *mcp.CallToolResult) []tool.Block {
	_, bs := renderContent(res)
	return bs
}

// renderContent is render and blocks in one pass.
func renderContent(res *mcp.CallToolResult) (string, []tool.Block) {
	var r renderer
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			r.text(c.Text)
		case *mcp.ImageContent:
			r.image("", c.MIMEType, c.Data)
		case *mcp.AudioContent:
			r.line(fmt.Sprintf("[audio: %s, %d bytes: not passed on]", orUnknown(c.MIMEType), len(c.Data)))
		case *mcp.ResourceLink:
			r.link(c)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				r.resource(c.Resource)
			}
		default:
			r.line(fmt.Sprintf("[%T content]", c))
		}
	}
	if len(r.parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			r.text(string(b))
		}
	}
	return r.result()
}

// renderResource is what resources/read gave, rendered as a tool result's
// content is: each of its contents as an embedded resource.
func renderResource(res *mcp.ReadResourceResult) (string, []tool.Block) {
	var r renderer
	for _, c := range res.Contents {
		if c != nil {
			r.resource(c)
		}
	}
	if len(r.parts) == 0 {
		r.line("(the resource is empty)")
	}
	return r.result()
}

// renderer gathers the text lines and blocks of one result.
type renderer struct {
	parts   []string
	out     []tool.Block
	started bool // a block other than text was added
}

func (r *renderer) text(s string) {
	r.parts = append(r.parts, s)
	r.out = append(r.out, tool.Block{Kind: tool.BlockText, Text: s})
}

// line is a line of the text that stands for content the model is not
// sent as it is.
func (r *renderer) line(s string) {
	r.parts = append(r.parts, s)
	r.started = true
}

// image passes data on as an image when a model may be sent it, else
// names it; uri is the resource it came in, if any.
func (r *renderer) image(uri, mime string, data []byte) {
	switch {
	case !llm.ImageType(mime):
		r.line(fmt.Sprintf("[image: %s, %d bytes: not a type models take (PNG, JPEG, GIF, WebP)]", orUnknown(mime), len(data)))
	case len(data) > MaxImageBytes:
		r.line(fmt.Sprintf("[image: %s, %d bytes: larger than the %d MB models take]", mime, len(data), MaxImageBytes>>20))
	default:
		r.parts = append(r.parts, llm.ImageNote(mime, len(data)))
		r.out = append(r.out, tool.Block{Kind: tool.BlockImage, MIMEType: mime, Data: data, URI: uri})
		r.started = true
	}
}

func (r *renderer) link(l *mcp.ResourceLink) {
	name := ""
	if l.Name != "" && l.Name != l.URI {
		name = " (" + l.Name + ")"
	}
	r.line(fmt.Sprintf("[resource link: %s%s%s; read it with %s]", l.URI, name, typeNote(l.MIMEType), ReadResourceTool))
	r.out = append(r.out, tool.Block{Kind: tool.BlockResource, URI: l.URI, MIMEType: l.MIMEType})
}

func (r *renderer) resource(c *mcp.ResourceContents) {
	switch {
	case c.Blob == nil || c.Text != "":
		r.line(fmt.Sprintf("[resource: %s%s]\n%s", c.URI, typeNote(c.MIMEType), c.Text))
		r.out = append(r.out, tool.Block{Kind: tool.BlockResource, URI: c.URI, MIMEType: c.MIMEType, Text: c.Text})
	case strings.HasPrefix(c.MIMEType, "image/"):
		r.line(fmt.Sprintf("[resource: %s%s]", c.URI, typeNote(c.MIMEType)))
		r.image(c.URI, c.MIMEType, c.Blob)
	default:
		r.line(fmt.Sprintf("[resource: %s, %s, %d bytes: binary content not shown]", c.URI, orUnknown(c.MIMEType), len(c.Blob)))
		r.out = append(r.out, tool.Block{Kind: tool.BlockResource, URI: c.URI, MIMEType: c.MIMEType})
	}
}

// result is the text and, unless the content was text alone, the blocks.
func (r *renderer) result() (string, []tool.Block) {
	text := strings.Join(r.parts, "\n")
	if !r.started {
		return text, nil
	}
	return text, r.out
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

func typeNote(mime string) string {
	if mime == "" {
		return ""
	}
	return ", " + mime
}
