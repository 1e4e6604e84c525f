// Command crashy is a test plugin: tool crash writes a line to stderr and
// exits with status 3 in the middle of the call; tool ok answers "ok" with
// the plugin's pid.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/harness-dev/harness/pluginapi"
)

func main() {
	schema := json.RawMessage(`{"type":"object"}`)
	pluginapi.Serve(pluginapi.Plugin{
		Name:    "crashy",
		Version: "0.0.1",
		Tools: []pluginapi.Tool{
			{
				Spec: pluginapi.ToolSpec{Name: "crash", Description: "Exits mid-call.", Schema: schema},
				Run: func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
					// fd 2 is the stderr the host reads; os.Stderr is
					// go-plugin's stdio stream after Serve.
					fmt.Fprintln(os.NewFile(2, "stderr"), "crashy: out of cheese, exiting") // stdout-ok: fd 2 is stderr
					os.Exit(3)
					return pluginapi.Result{}, nil
				},
			},
			{
				Spec: pluginapi.ToolSpec{Name: "ok", Description: "Answers.", Schema: schema, ConcurrencySafe: true},
				Run: func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
					return pluginapi.Result{Content: fmt.Sprintf("ok from %d", os.Getpid())}, nil
				},
			},
		},
	})
}
