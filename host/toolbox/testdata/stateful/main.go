// Command stateful is a test plugin that holds state for a session when
// told to, and says so in its results (pluginapi.Plugin.HoldsState), the
// way bash does for its background tasks.
package main

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/harness-dev/harness/pluginapi"
)

type holdArgs struct {
	Hold bool `json:"hold"`
}

func main() {
	var (
		mu   sync.Mutex
		held = map[string]bool{}
	)
	pluginapi.Serve(pluginapi.Plugin{
		Name:    "stateful",
		Version: "0.0.1",
		Tools: []pluginapi.Tool{
			pluginapi.Typed(pluginapi.ToolSpec{
				Name:        "hold",
				Description: "Holds state for the session (or lets it go).",
				Schema:      json.RawMessage(`{"type":"object","properties":{"hold":{"type":"boolean"}}}`),
			}, func(_ context.Context, call *pluginapi.Call, a holdArgs) (pluginapi.Result, error) {
				mu.Lock()
				defer mu.Unlock()
				held[call.SessionID] = a.Hold
				return pluginapi.Result{Content: "ok"}, nil
			}),
		},
		HoldsState: func(session string) bool {
			mu.Lock()
			defer mu.Unlock()
			return held[session]
		},
		SessionClosed: func(_ context.Context, session string) {
			mu.Lock()
			defer mu.Unlock()
			delete(held, session)
		},
	})
}
