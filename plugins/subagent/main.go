// Command subagent is the harness plugin serving the subagent tool: it
// delegates a self-contained task to a child agent. The child runs in the
// host — its own session and log, linked to the parent's — through
// HostServices.SpawnSubagent; this plugin forwards its progress to the
// calling tool call and returns its final answer. The plugin keeps no state.
package main

import "github.com/harness-dev/harness/pluginapi"

func main() {
	pluginapi.Serve(subagentPlugin())
}

func subagentPlugin() pluginapi.Plugin {
	return pluginapi.Plugin{
		Name:    "subagent",
		Version: "1.0.0",
		Tools:   []pluginapi.Tool{subagentTool()},
	}
}
