package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
)

// TestSessionModel: a session starts on the first model; SetOption logs a
// switch that the next request carries, with the model's effort; bad ids,
// values and a model the session no longer fits are refused without a
// log line; a reopened session keeps its model; Usage prices each step at
// the model it ran on.
func TestSessionModel(t *testing.T) {
	t.Parallel()
	model, err := script.Load(strings.NewReader(
		`{"text":"one","usage":{"input":5000,"output":100},"expect":{"model":"big"}}` + "\n" +
			`{"text":"two","usage":{"input":10,"output":10},"expect":{"model":"deep","effort":"high"}}` + "\n" +
			`{"text":"three","expect":{"model":"deep","effort":"high"}}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	models := []llm.ModelInfo{
		{Name: "big", ContextWindow: 100_000, Prices: &llm.Prices{Input: 1, Output: 1}},
		{Name: "small", ContextWindow: 1000},
		{Name: "deep", ContextWindow: 64_000, ReasoningEfforts: []string{"low", "high"}, DefaultEffort: "low",
			Prices: &llm.Prices{Input: 10, Output: 10}},
	}
	state := t.TempDir()
	r, err := engine.New(engine.Config{StateDir: state, Model: model, ModelName: "big", Models: models})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if m, effort := r.SessionModel(s); m.Name != "big" || effort != "" {
		t.Fatalf("new session on %s/%q, want big", m.Name, effort)
	}
	if out := r.Run(context.Background(), s, nil, event.Text("hi"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 1: %s %v", out.Reason, out.Err)
	}
	before := s.Len()
	for _, bad := range []struct{ id, value, why string }{
		{"model", "nope", `no model "nope"; configured: big, small, deep`},
		{"colour", "red", `unknown option "colour"`},
		{"reasoning_effort", "high", "model big has no reasoning effort levels"},
		{"model", "small", "the session holds 5100 tokens, more than small's window of 1000"},
	} {
		err := r.SetOption(s, bad.id, bad.value)
		if !errors.Is(err, engine.ErrBadOption) || !strings.Contains(err.Error(), bad.why) {
			t.Errorf("SetOption(%s, %s) = %v, want ErrBadOption saying %q", bad.id, bad.value, err, bad.why)
		}
	}
	if s.Len() != before {
		t.Fatalf("a refused switch was logged")
	}
	if err := r.SetOption(s, "model", "deep"); err != nil {
		t.Fatal(err)
	}
	if m, effort := r.SessionModel(s); m.Name != "deep" || effort != "low" {
		t.Fatalf("after the switch: %s/%q, want deep/low", m.Name, effort)
	}
	if err := r.SetOption(s, "reasoning_effort", "high"); err != nil {
		t.Fatal(err)
	}
	if out := r.Run(context.Background(), s, nil, event.Text("again"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 2: %s %v", out.Reason, out.Err)
	}
	u := r.Usage(s, 0)
	want := (5000*1+100*1)/1e6 + (10*10+10*10)/1e6
	if u.Used != 20 || u.Size != 64_000 || !u.Priced || u.Currency != "USD" || u.Cost < want-1e-12 || u.Cost > want+1e-12 {
		t.Fatalf("usage %+v, want used 20, size 64000, cost %v USD", u, want)
	}
	id := s.ID()
	if err := r.CloseSession(s); err != nil {
		t.Fatal(err)
	}
	s, err = r.OpenSession(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.CloseSession(s)
	if m, effort := r.SessionModel(s); m.Name != "deep" || effort != "high" {
		t.Fatalf("reopened on %s/%q, want deep/high", m.Name, effort)
	}
	if out := r.Run(context.Background(), s, nil, event.Text("more"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 3: %s %v", out.Reason, out.Err)
	}
}

// TestImageRefusal: a prompt with an image for a model without image
// input is refused, nothing logged, with one line that says it once and
// says what to do.
func TestImageRefusal(t *testing.T) {
	t.Parallel()
	model, err := script.Load(strings.NewReader(`{"text":"unused"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.New(engine.Config{StateDir: t.TempDir(), Model: model, ModelName: "script",
		Models: []llm.ModelInfo{{Provider: "script", Name: "script"}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.CloseSession(s)
	before := s.Len()
	prompt := []event.Content{{Type: event.ContentText, Text: "what is this?"}, {Type: event.ContentImage, MimeType: "image/png", Data: []byte("\x89PNG")}}
	out := r.Run(context.Background(), s, nil, prompt, nil, nil)
	want := "model script does not accept images: switch to a model that does, or, if it does, set images = true in its [[models]] entry of the config file"
	if !errors.Is(out.Err, engine.ErrImagesUnsupported) || out.Err.Error() != want {
		t.Errorf("err = %v, want ErrImagesUnsupported saying %q", out.Err, want)
	}
	if s.Len() != before {
		t.Errorf("a refused prompt logged %d events", s.Len()-before)
	}
}
