package engine

import (
	"context"
	"iter"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/host/toolbox"
)

// The loop's tools and model for a session: where each step's tools come
// from (sessionTools) and the model a session's requests go to
// (sessionModel).

// sessionTools is the tool source of the loops the Runtime builds
// (agent.Tools): a step's tools are the plugins' (a toolbox.Step: its
// list held for the step, a plugin started as soon as the model names its
// tool), then the tools of the MCP servers the step's session uses (its
// own, or its root's for a subagent child), an MCP tool whose name a
// plugin tool has left out (the plugin's wins), and mcp_read_resource when
// one of those servers is up and offers resources. Past the tool budget,
// the tools beyond the core set are deferred behind tool_search
// (toolbudget.go).
type sessionTools struct{ r *Runtime }

// Step implements agent.Tools.
func (t sessionTools) Step(ctx context.Context, info agent.StepInfo) (agent.Step, error) {
	st := &step{r: t.r}
	if t.r.tools != nil {
		st.plugins = t.r.tools.Step(toolbox.WithCwd(ctx, info.Cwd))
	}
	if set, ok := t.r.mcp.of(info.SessionID); ok {
		st.addMCP(set)
	}
	return t.r.toolBudget(info, st), nil // past the tool budget: some behind tool_search
}

// step is one step's tool set: the plugins' step and the MCP tools of the
// session, as listed when the step began.
type step struct {
	r       *Runtime
	plugins *toolbox.Step // nil: no plugins
	mcp     *mcpclient.Set
	mcpList []tool.Tool          // in the servers' order
	byName  map[string]tool.Tool // mcpList by name
}

// addMCP lists set's tools in the step, but for those a plugin offers.
func (s *step) addMCP(set *mcpclient.Set) {
	taken := map[string]bool{}
	if s.plugins != nil {
		for _, t := range s.plugins.Tools() {
			taken[t.Spec.Name] = true
		}
	}
	s.mcp, s.byName = set, map[string]tool.Tool{}
	for _, st := range set.Tools() {
		if taken[st.Spec.Name] {
			continue
		}
		t := st.AsTool()
		s.mcpList = append(s.mcpList, t)
		s.byName[t.Spec.Name] = t
	}
	if servers := set.ResourceServers(); len(servers) > 0 && !taken[mcpclient.ReadResourceTool] {
		t := mcpclient.ReadResourceSpec(servers)
		s.mcpList = append(s.mcpList, t)
		s.byName[t.Spec.Name] = t
	}
}

// Tools implements agent.Step: the plugins' tools, then the MCP servers'.
func (s *step) Tools() []tool.Tool {
	var list []tool.Tool
	if s.plugins != nil {
		list = s.plugins.Tools()
	}
	return append(list, s.mcpList...)
}

// Warm implements agent.Step: it starts a plugin on use; an MCP server
// starts with its session.
func (s *step) Warm(name string) {
	if _, ok := s.byName[name]; !ok && s.plugins != nil {
		s.plugins.Warm(name)
	}
}

// Tool implements agent.Step.
func (s *step) Tool(name string) (tool.Tool, bool) {
	if t, ok := s.byName[name]; ok {
		return t, true
	}
	if s.plugins == nil {
		return tool.Tool{}, false
	}
	return s.plugins.Tool(name)
}

// Preview implements agent.Step: an MCP call is titled as its tool is
// (tool.Tool.Title, "server: tool"); a plugin call's preview is the
// plugin's.
func (s *step) Preview(ctx context.Context, c tool.Call) tool.Meta {
	if t, ok := s.byName[c.Name]; ok {
		if c.Name == mcpclient.ReadResourceTool {
			return tool.Meta{Title: mcpclient.ReadResourceTitle(c.Args)}
		}
		return tool.Meta{Title: t.Title}
	}
	if s.plugins == nil {
		return tool.Meta{}
	}
	return s.plugins.Preview(ctx, c)
}

// Call implements agent.Step. An MCP call's progress notifications are
// its live output (c.Progress), as a plugin's progress is; its result is
// capped as bash's output is (capMCP), for the model, the log and the
// editor alike, and its images are stored as blobs of the call's session
// (storeResultImages), so that its tool/result logs their hashes.
func (s *step) Call(ctx context.Context, c tool.Call) tool.Result {
	if _, ok := s.byName[c.Name]; ok {
		// the server's questions during the call name it (mcpcaps.go)
		ctx = mcpclient.WithCall(ctx, mcpclient.CallInfo{SessionID: c.SessionID, CallID: c.CallID})
		var res tool.Result
		if c.Name == mcpclient.ReadResourceTool {
			res = s.mcp.ReadResource(ctx, []byte(c.Args))
		} else {
			res = s.mcp.Call(mcpclient.WithProgress(ctx, c.Progress), c.Name, []byte(c.Args))
		}
		return s.r.storeResultImages(c.SessionID, capMCP(s.r.cfg.StateDir, c, res))
	}
	if s.plugins == nil {
		return tool.Result{Content: "Error: unknown tool " + c.Name, IsError: true}
	}
	if et, ok := s.r.inTerminal(c); ok {
		return runInTerminal(ctx, et, c)
	}
	return s.plugins.Call(ctx, c)
}

// Close implements agent.Step.
func (s *step) Close() {
	if s.plugins != nil {
		s.plugins.Close()
	}
}

// sessionModel sends every request of s with the model and reasoning
// effort the session has chosen as of that request, so a switch during a
// turn applies from the next step; the model's provider serves it. With
// no session (a loop not yet given one: a subagent child, a compaction
// the caller runs) it is Config.Model.
type sessionModel struct {
	r *Runtime
	s *session.Session
}

// Stream implements agent.Model.
func (m sessionModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	if m.s == nil {
		return m.r.cfg.Model.Stream(ctx, req)
	}
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
