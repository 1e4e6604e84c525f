// Command versioned is a test plugin for hot reload: its tool "version"
// answers the version string it was built with (-ldflags "-X
// main.version=v2"), so a test can tell which binary served a call; tool
// "slow_version" reports progress "started" and answers it after sleeping
// the given milliseconds (or "cancelled" when the call is cancelled
// first). -X main.tool renames the
// "version" tool, to make a build that clashes with another plugin; -X
// main.write declares a write capability (pluginapi.Capabilities.Write).
package main

import (
	"context"
	"encoding/json"
	"time"

	"github.com/harness-dev/harness/pluginapi"
)

// Set with -ldflags -X.
var (
	version = "v0"
	tool    = "version"
	write   = ""
)

type slowArgs struct {
	MS int `json:"ms"`
}

func main() {
	pluginapi.Serve(pluginapi.Plugin{
		Name:    "versioned",
		Version: version,
		Capabilities: func() (c pluginapi.Capabilities) {
			if write != "" {
				c.Write = []string{write}
			}
			return c
		}(),
		Tools: []pluginapi.Tool{
			{
				Spec: pluginapi.ToolSpec{Name: tool, Description: "Answers the plugin's version.", Schema: json.RawMessage(`{"type":"object"}`), ConcurrencySafe: true},
				Run: func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
					return pluginapi.Result{Content: version}, nil
				},
			},
			pluginapi.Typed(pluginapi.ToolSpec{
				Name:            "slow_version",
				Description:     "Answers the plugin's version after ms milliseconds.",
				Schema:          json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}}}`),
				ConcurrencySafe: true,
			}, func(ctx context.Context, call *pluginapi.Call, a slowArgs) (pluginapi.Result, error) {
				call.Progress("started")
				select {
				case <-time.After(time.Duration(a.MS) * time.Millisecond):
					return pluginapi.Result{Content: version}, nil
				case <-ctx.Done():
					return pluginapi.ErrorResult("cancelled"), nil
				}
			}),
		},
	})
}
