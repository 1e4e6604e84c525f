package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/pricing"
)

// TestModelLogged: a session's log names the model it starts on (By host,
// with its provider) and, when a host with another default continues it,
// the model that served the new turn; the host's records are not switches
// (the continued session runs on the host's default), and the listing
// prices each turn at its own model.
func TestModelLogged(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	models := func(names ...string) []llm.ModelInfo {
		var out []llm.ModelInfo
		for _, n := range names {
			out = append(out, llm.ModelInfo{Provider: "p", Name: n, Prices: &llm.Prices{Input: map[string]float64{"big": 1, "deep": 10}[n]}})
		}
		return out
	}
	host := func(expect string, ms []llm.ModelInfo) *engine.Runtime {
		model, err := script.Load(strings.NewReader(`{"text":"ok","usage":{"input":1000000,"output":0},"expect":{"model":"` + expect + `"}}` + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := engine.New(engine.Config{StateDir: state, Model: model, ModelName: ms[0].Name, Models: ms})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := host("big", models("big", "deep"))
	s, err := r.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if out := r.Run(context.Background(), s, nil, event.Text("hi"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 1: %s %v", out.Reason, out.Err)
	}
	id := s.ID()
	r.CloseSession(s)

	r = host("deep", models("deep", "big"))
	if s, err = r.OpenSession(id); err != nil {
		t.Fatal(err)
	}
	if out := r.Run(context.Background(), s, nil, event.Text("again"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 2 (on the new host's default): %s %v", out.Reason, out.Err)
	}
	var got []event.ConfigOption
	for _, ev := range s.Events() {
		if p, err := ev.Decode(); err == nil {
			if o, ok := p.(event.ConfigOption); ok {
				got = append(got, o)
			}
		}
	}
	r.CloseSession(s)
	want := []event.ConfigOption{
		{ID: "model", Value: "big", Provider: "p", By: event.ByHost},
		{ID: "model", Value: "deep", Provider: "p", By: event.ByHost},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("config/option events = %+v, want %+v", got, want)
	}
	list, err := r.ListSessions()
	if err != nil || len(list) != 1 {
		t.Fatalf("ListSessions = %v, %v", list, err)
	}
	if u := pricing.Summary(list[0], models("deep", "big")); !u.Priced || u.Cost != 11 {
		t.Errorf("listed usage %+v, want priced, cost 1 (big) + 10 (deep)", u)
	}
}
