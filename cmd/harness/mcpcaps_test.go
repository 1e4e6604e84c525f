//go:build linux

package main

import "testing"

// TestACPEditorMCPCaps runs testdata/acpclient/mcpcaps.mjs: the official
// ACP TypeScript SDK against `harness acp` with
// @modelcontextprotocol/server-everything over stdio — its prompts as
// commands that run, its instructions in the system prompt, roots,
// elicitation through the editor, sampling refused, and the tools it shows
// only to a client with those capabilities.
func TestACPEditorMCPCaps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	t.Parallel()
	node := nodeClient(t)
	bin, pluginDir := buildHarness(t)
	runScenario(t, node, bin, pluginDir, editorScenario{name: "mcpcaps"})
}
