// Command early is a test plugin that asks to run for as long as the host
// does (pluginapi.Plugin.StartEarly): started when the host opens its
// tools, never stopped when idle.
package main

import (
	"context"
	"encoding/json"

	"github.com/harness-dev/harness/pluginapi"
)

func main() {
	pluginapi.Serve(pluginapi.Plugin{
		Name:       "early",
		Version:    "0.0.1",
		StartEarly: true,
		Tools: []pluginapi.Tool{
			pluginapi.Typed(pluginapi.ToolSpec{
				Name:        "ping",
				Description: "Answers pong.",
				Schema:      json.RawMessage(`{"type":"object","properties":{}}`),
			}, func(context.Context, *pluginapi.Call, struct{}) (pluginapi.Result, error) {
				return pluginapi.Result{Content: "pong"}, nil
			}),
		},
	})
}
