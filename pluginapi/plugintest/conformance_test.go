package plugintest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

func tool(name, schema string, run func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error)) pluginapi.Tool {
	return pluginapi.Tool{Spec: pluginapi.ToolSpec{Name: name, Description: "d", Schema: json.RawMessage(schema)}, Run: run}
}

// TestConformanceCatches runs the checks on a plugin that breaks the rules
// and expects each break to be reported.
func TestConformanceCatches(t *testing.T) {
	t.Parallel()
	open := `{"type":"object"}`
	p := pluginapi.Plugin{
		Name:    "bad",
		Version: "0",
		Tools: []pluginapi.Tool{
			// Accepts anything, including unknown arguments.
			tool("lenient", open, func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				return pluginapi.Result{Content: "ok"}, nil
			}),
			// Ignores cancellation.
			tool("stubborn", open, func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				time.Sleep(2500 * time.Millisecond)
				return pluginapi.ErrorResult("late"), nil
			}),
		},
	}
	c := plugintest.Start(t, p)
	errs := plugintest.Check(t.Context(), c)
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"unknown_argument: tool lenient with an unknown argument: want an error Result, got the success \"ok\"",
		"cancelled: tool stubborn, cancelled 20ms into the call: no return within 2s",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing failure %q in:\n%s", want, all)
		}
	}
	if len(errs) != 2 {
		t.Errorf("got %d failures, want 2:\n%s", len(errs), all)
	}
}

func TestConformancePasses(t *testing.T) {
	t.Parallel()
	p := pluginapi.Plugin{
		Name:    "good",
		Version: "1",
		Tools: []pluginapi.Tool{pluginapi.Typed(pluginapi.ToolSpec{Name: "wait", Description: "waits until cancelled",
			Schema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
			func(ctx context.Context, _ *pluginapi.Call, _ struct{}) (pluginapi.Result, error) {
				<-ctx.Done()
				return pluginapi.ErrorResult("cancelled"), nil
			})},
	}
	plugintest.Conformance(t, plugintest.Start(t, p))
}
