// Command badevent is a test plugin that proposes events the host must
// refuse. It declares only "badevent/ok".
//
// Tool undeclared returns an event of type "other/thing". The SDK checks
// results against the declared types itself, so to play a plugin without
// that check (another language, an older SDK) it changes the second entry
// of its declared list after Describe answered: Serve checks against the
// list it was given, the host against the one it was told. (The second
// entry is a duplicate, so nothing else changes, and of the same length as
// its replacement, so a concurrent reader sees one string or the other.)
package main

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/harness-dev/harness/pluginapi"
)

func main() {
	declared := []string{"badevent/ok", "badevent/ok"}
	var once sync.Once
	schema := json.RawMessage(`{"type":"object"}`)
	tool := func(name string, run func() pluginapi.Result) pluginapi.Tool {
		return pluginapi.Tool{
			Spec: pluginapi.ToolSpec{Name: name, Description: "Proposes an event.", Schema: schema},
			Run: func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				return run(), nil
			},
		}
	}
	pluginapi.Serve(pluginapi.Plugin{
		Name:       "badevent",
		Version:    "0.0.1",
		EventTypes: declared,
		Tools: []pluginapi.Tool{
			tool("good", func() pluginapi.Result {
				return pluginapi.Result{Content: "good", Events: []pluginapi.Event{{Type: "badevent/ok", Data: json.RawMessage(`{"n":1}`)}}}
			}),
			tool("undeclared", func() pluginapi.Result {
				once.Do(func() { declared[1] = "other/thing" })
				return pluginapi.Result{Content: "sneaky", Events: []pluginapi.Event{{Type: "other/thing", Data: json.RawMessage(`{"n":2}`)}}}
			}),
			tool("array", func() pluginapi.Result {
				return pluginapi.Result{Content: "array", Events: []pluginapi.Event{{Type: "badevent/ok", Data: json.RawMessage(`[1,2]`)}}}
			}),
		},
	})
}
