//go:build linux

package main

import "testing"

// TestACPEditorMCPProgress runs @modelcontextprotocol/server-everything
// (installed from npm with the client, pinned) over stdio and over
// streamable HTTP through `harness acp`, driven by the official ACP
// TypeScript SDK: a long-running tool's progress reaches the editor as
// tool_call_update before the call ends, and the calls and the permission
// request are titled by the server's titles with the raw name in _meta.
// See testdata/acpclient/mcpprogress.mjs.
func TestACPEditorMCPProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	t.Parallel()
	node := nodeClient(t)
	bin, pluginDir := buildHarness(t)
	runScenario(t, node, bin, pluginDir, editorScenario{name: "mcpprogress"})
}
