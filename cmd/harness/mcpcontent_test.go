//go:build linux

package main

import "testing"

// TestACPEditorMCPContent runs @modelcontextprotocol/server-everything
// (installed by npm ci with the ACP client) over stdio through `harness
// acp` and the official ACP TypeScript SDK: an image tool's result reaches
// the client as image content and a vision model's request as an image
// part, a text model's as a note; a resource link is read with
// mcp_read_resource; session/load replays the image. See
// testdata/acpclient/mcpcontent.mjs.
func TestACPEditorMCPContent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	t.Parallel()
	node := nodeClient(t)
	bin, pluginDir := buildHarness(t)
	runScenario(t, node, bin, pluginDir, editorScenario{name: "mcpcontent"})
}
