// Command slow is a test plugin whose tool runs until its call is
// cancelled.
package main

import (
	"context"
	"encoding/json"

	"github.com/harness-dev/harness/pluginapi"
)

func main() {
	pluginapi.Serve(pluginapi.Plugin{
		Name:    "slow",
		Version: "0.0.1",
		Tools: []pluginapi.Tool{
			{
				Spec: pluginapi.ToolSpec{Name: "sleep", Description: "Sleeps until cancelled.", Schema: json.RawMessage(`{"type":"object"}`), ConcurrencySafe: true},
				Run: func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
					call.Progress("sleeping")
					<-ctx.Done()
					return pluginapi.ErrorResult("cancelled"), nil
				},
			},
		},
	})
}
