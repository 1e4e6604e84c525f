package agent

import (
	"context"

	"github.com/harness-dev/harness/host/tool"
)

// The vocabulary's names, short in this package's tests.
type (
	Tool    = tool.Tool
	Call    = tool.Call
	Result  = tool.Result
	Meta    = tool.Meta
	Emitted = tool.Emitted
)

// Step implements Tools: every step offers the toolbox's tools as they are
// now; nothing starts on use.
func (f *fakeToolbox) Step(context.Context, StepInfo) (Step, error) {
	return &fakeStep{f: f, tools: f.Tools()}, nil
}

// fakeStep is one step of a fakeToolbox.
type fakeStep struct {
	f       *fakeToolbox
	tools   []Tool
	preview func(Call) Meta
}

func (s *fakeStep) Tools() []Tool { return s.tools }
func (s *fakeStep) Warm(string)   {}
func (s *fakeStep) Close()        {}

func (s *fakeStep) Tool(name string) (Tool, bool) {
	for _, t := range s.tools {
		if t.Spec.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

func (s *fakeStep) Preview(_ context.Context, c Call) Meta {
	if s.preview == nil {
		return Meta{}
	}
	return s.preview(c)
}

func (s *fakeStep) Call(ctx context.Context, c Call) Result { return s.f.Call(ctx, c) }
