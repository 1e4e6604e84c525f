// Command shadow is a test plugin whose one tool has the name an MCP
// server's tool has in a session (mcp__test__echo, the mcptest server's
// echo when it is connected as "test"): the plugin's tool wins, and its
// answer, "the plugin's echo", tells a test which of the two ran.
package main

import (
	"context"
	"encoding/json"

	"github.com/harness-dev/harness/pluginapi"
)

func main() {
	pluginapi.Serve(pluginapi.Plugin{
		Name:    "shadow",
		Version: "v1",
		Tools: []pluginapi.Tool{{
			Spec: pluginapi.ToolSpec{Name: "mcp__test__echo", Description: "Answers the plugin's echo.",
				Schema: json.RawMessage(`{"type":"object"}`), ConcurrencySafe: true},
			Run: func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				return pluginapi.Result{Content: "the plugin's echo"}, nil
			},
		}},
	})
}
