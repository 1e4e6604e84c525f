package engine

import (
	"context"
	"iter"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/prompt"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi"
)

// The loop's tools and model for one session: the plugin toolbox adapted
// to agent.Toolbox, and the model wrappers a turn's requests pass through.

// loopTools adapts the plugin toolbox to the loop's Toolbox interface.
type loopTools struct {
	tb *toolbox.Toolbox
	// cwd is the session's working directory: the plugins a step starts
	// are confined to it (toolbox.WithCwd); "" the host's.
	cwd string
}

// Tools implements agent.Toolbox.
func (a loopTools) Tools() []agent.Tool { return agentTools(a.tb.Tools()) }

func agentTools(list []toolbox.Tool) []agent.Tool {
	out := make([]agent.Tool, len(list))
	for i, t := range list {
		p := t.Plugin
		out[i] = agent.Tool{Spec: t.Spec, ConcurrencySafe: t.ConcurrencySafe, NeedsPermission: t.NeedsPermission, Kind: t.Kind, Plugin: &p, Sandboxes: t.Sandboxes}
	}
	return out
}

// HoldTools implements agent.ToolHolder: the processes the list names
// serve the step's calls until it releases them, across a hot reload.
func (a loopTools) HoldTools() ([]agent.Tool, func()) {
	list, release := a.tb.HoldTools()
	return agentTools(list), release
}

// Call implements agent.Toolbox.
func (a loopTools) Call(ctx context.Context, c agent.Call) agent.Result {
	r := a.tb.Call(ctx, toolbox.Call{
		SessionID: c.SessionID, Caller: pluginapi.CallerAgent, Turn: c.Turn,
		CallID: c.CallID, Name: c.Name, Args: c.Args, Cwd: c.Cwd, Plugin: c.Plugin,
		Sandbox: pluginSandbox(c.Sandbox),
	}, c.Progress)
	out := agent.Result{Content: r.Content, IsError: r.IsError, Meta: agentMeta(r.Meta)}
	for _, e := range r.Events {
		out.Events = append(out.Events, agent.Emitted{Type: event.Type(e.Type), Data: e.Data})
	}
	return out
}

// Preview implements agent.Previewer: what the plugin says the call would
// do.
func (a loopTools) Preview(ctx context.Context, c agent.Call) agent.Meta {
	return agentMeta(a.tb.Preview(ctx, toolbox.Call{
		SessionID: c.SessionID, Caller: pluginapi.CallerAgent, Turn: c.Turn,
		CallID: c.CallID, Name: c.Name, Args: c.Args, Cwd: c.Cwd, Plugin: c.Plugin,
	}))
}

// agentMeta converts a plugin's Meta for the loop.
func agentMeta(m pluginapi.Meta) agent.Meta {
	out := agent.Meta{Title: m.Title}
	for _, l := range m.Locations {
		out.Locations = append(out.Locations, event.Location{Path: l.Path, Line: l.Line})
	}
	for _, d := range m.Diffs {
		out.Diffs = append(out.Diffs, event.Diff{Path: d.Path, OldText: d.OldText, NewText: d.NewText, NewFile: d.NewFile})
	}
	return out
}

// sessionModel sends every request of s with the model and reasoning
// effort the session has chosen as of that request, so a switch during a
// turn applies from the next step; the model's provider serves it.
type sessionModel struct {
	r *Runtime
	s *session.Session
}

// Stream implements agent.Model.
func (m sessionModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	info, effort := m.r.SessionModel(m.s)
	if info.Name != "" {
		req.Model = info.Name
	}
	req.ReasoningEffort = effort
	if !info.Images {
		req.Messages = withoutImages(req.Messages) // a switch from a vision model
	}
	p, err := m.r.provider(info)
	if err != nil {
		return func(yield func(llm.Chunk, error) bool) { yield(llm.Chunk{}, err) }
	}
	return p.Stream(ctx, req)
}

// toolPrompt sends every request with the system prompt naming the tools
// of that request: the tool list can change between steps (hot reload), so
// a prompt built once would name tools no longer sent, or miss new ones.
type toolPrompt struct {
	agent.Model
	prompt prompt.Result
}

// Stream implements agent.Model.
func (m toolPrompt) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	names := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		names[i] = t.Name
	}
	req.System = m.prompt.ForTools(names)
	return m.Model.Stream(ctx, req)
}
