// Command oldplugin is a plugin built against the plugin SDK v1.3.0
// (protocol minor 3), as a third party built it before minor 5: its
// go.mod requires that release with no replace directive, and
// TestOldPlugin builds it through a module proxy serving v1.3.0 from its
// commit, then runs it in today's host. "echo" has no preview, "note" has
// one and counts the previews it made; "previews" answers that count.
package main

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"

	"github.com/harness-dev/harness/pluginapi"
)

type text struct {
	Text string `json:"text"`
}

func main() {
	var previews atomic.Int64
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)
	echo := pluginapi.Typed(pluginapi.ToolSpec{Name: "echo", Description: "Says the text back.", Schema: schema},
		func(_ context.Context, _ *pluginapi.Call, a text) (pluginapi.Result, error) {
			return pluginapi.Result{Content: a.Text}, nil
		})
	note := pluginapi.Typed(pluginapi.ToolSpec{Name: "note", Description: "Notes the text.", Schema: schema, Kind: pluginapi.KindEdit},
		func(_ context.Context, _ *pluginapi.Call, a text) (pluginapi.Result, error) {
			return pluginapi.Result{Content: "noted " + a.Text}, nil
		})
	note = pluginapi.WithPreview(note, func(_ context.Context, _ *pluginapi.Call, a text) pluginapi.Meta {
		previews.Add(1)
		return pluginapi.Meta{Title: "Note " + a.Text}
	})
	count := pluginapi.Typed(pluginapi.ToolSpec{Name: "previews", Description: "Counts the previews made.", Schema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *pluginapi.Call, struct{}) (pluginapi.Result, error) {
			return pluginapi.Result{Content: strconv.FormatInt(previews.Load(), 10)}, nil
		})
	pluginapi.Serve(pluginapi.Plugin{Name: "oldplugin", Version: "0.1.0", Tools: []pluginapi.Tool{echo, note, count}})
}
