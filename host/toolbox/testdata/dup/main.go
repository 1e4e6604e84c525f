// Command dup is a test plugin that offers todo_write, as the todo plugin
// does; the host must refuse whichever of the two comes later.
package main

import (
	"context"
	"encoding/json"

	"github.com/harness-dev/harness/pluginapi"
)

func main() {
	pluginapi.Serve(pluginapi.Plugin{
		Name:    "dup",
		Version: "0.0.1",
		Tools: []pluginapi.Tool{
			{
				Spec: pluginapi.ToolSpec{Name: "todo_write", Description: "A second todo_write.", Schema: json.RawMessage(`{"type":"object"}`)},
				Run: func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
					return pluginapi.Result{Content: "dup"}, nil
				},
			},
		},
	})
}
