// Command todo is the harness plugin serving todo_write: the model's
// structured task list for the current work. It validates the whole list
// the model sends and proposes one todo/write event carrying it; the host
// appends that event to the session log, which is where the list lives.
// The plugin keeps no state.
package main

import "github.com/harness-dev/harness/pluginapi"

func main() {
	pluginapi.Serve(todoPlugin())
}

func todoPlugin() pluginapi.Plugin {
	return pluginapi.Plugin{
		Name:       "todo",
		Version:    "1.0.0",
		Tools:      []pluginapi.Tool{todoTool()},
		EventTypes: []string{eventType},
	}
}
