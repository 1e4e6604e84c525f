package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-dev/harness/host/tool"
)

// render turns a tools/call result into the text the model reads: text
// content as it is; an image, audio or resource summarized by its type
// (the model gets no binary data through a text tool result); structured
// content as JSON when there is nothing else.
func render(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s%s]", c.URI, typeNote(c.MIMEType)))
		case *mcp.EmbeddedResource:
			if r := c.Resource; r != nil {
				if r.Text != "" {
					parts = append(parts, fmt.Sprintf("[resource: %s%s]\n%s", r.URI, typeNote(r.MIMEType), r.Text))
				} else {
					parts = append(parts, fmt.Sprintf("[resource: %s%s, %d bytes]", r.URI, typeNote(r.MIMEType), len(r.Blob)))
				}
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// blocks is a tools/call result's content as the host's content blocks,
// nil when it is text alone (Content says it all). Audio, and content of
// kinds the host does not know, are left to the text.
func blocks(res *mcp.CallToolResult) []tool.Block {
	var out []tool.Block
	onlyText := true
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out = append(out, tool.Block{Kind: tool.BlockText, Text: c.Text})
		case *mcp.ImageContent:
			out = append(out, tool.Block{Kind: tool.BlockImage, MIMEType: c.MIMEType, Data: c.Data})
			onlyText = false
		case *mcp.ResourceLink:
			out = append(out, tool.Block{Kind: tool.BlockResource, URI: c.URI, MIMEType: c.MIMEType})
			onlyText = false
		case *mcp.EmbeddedResource:
			if r := c.Resource; r != nil {
				out = append(out, tool.Block{Kind: tool.BlockResource, URI: r.URI, MIMEType: r.MIMEType, Text: r.Text, Data: r.Blob})
				onlyText = false
			}
		}
	}
	if onlyText {
		return nil
	}
	return out
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
