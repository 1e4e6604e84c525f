// Command panicky is a test plugin whose tool panics; the SDK turns the
// panic into an error result and the process lives on.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/harness-dev/harness/pluginapi"
)

func main() {
	pluginapi.Serve(pluginapi.Plugin{
		Name:    "panicky",
		Version: "0.0.1",
		Tools: []pluginapi.Tool{
			{
				Spec: pluginapi.ToolSpec{Name: "panic", Description: "Panics.", Schema: json.RawMessage(`{"type":"object"}`)},
				Run: func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
					panic(fmt.Sprintf("boom in %d", os.Getpid()))
				},
			},
		},
	})
}
