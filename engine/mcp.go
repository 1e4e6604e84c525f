package engine

import (
	"context"
	"os"
	"sync"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
)

// MCPServer is one MCP server a front end connects to a session (the
// editor's, from session/new).
type MCPServer = mcpclient.ServerConfig

// MCPEnvVar is a variable of an MCPServer's env, or one of its headers.
type MCPEnvVar = mcpclient.EnvVar

// mcpSets are the sessions' MCP servers (mcpclient.Sessions).
type mcpSets struct{ *mcpclient.Sessions }

// of returns the MCP servers session id uses: its own, or its root's
// when it is a running child.
func (m mcpSets) of(id string) (*mcpclient.Set, bool) { return m.Of(id) }

// ConnectMCP connects the MCP servers of session s: the user's mcp.json
// (Config.MCPUserFile), the project's .mcp.json in the session's folder
// when Config.MCPProject trusts it, and servers (the editor's), a later
// source's server replacing an earlier one of the same name. They start in
// the background (the first step waits for them, bounded), belong to s and
// stop when it is closed. A server that fails is one warning line; the
// session goes on without it. Calling it again replaces the servers.
func (r *Runtime) ConnectMCP(s *session.Session, servers []MCPServer) {
	r.mcp.Connect(s.ID(), s.Cwd(), servers)
}

// startMCP starts servers for a session in folder cwd.
func (r *Runtime) startMCP(servers []MCPServer, cwd string) *mcpclient.Set {
	environ := r.cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	return mcpclient.Start(servers, mcpclient.Options{
		Logger: r.log.Named("mcp"), Environ: environ, PassEnv: r.cfg.PluginEnv, Cwd: cwd,
		ClientName: "harness", ClientVersion: r.cfg.HostVersion, StartTimeout: r.cfg.MCPStartTimeout,
		Confine: r.mcpConfiner(),
	})
}

// MCPServers lists the MCP servers a session in folder cwd would have
// from the configuration files (the user's mcp.json; the project's
// .mcp.json, whose servers are listed as not started unless
// Config.MCPProject trusts it), each started to list its tools and
// stopped again (each start bounded by Config.MCPStartTimeout). What it
// returns holds no env or header values, no arguments and no URL
// credentials or query: see mcpclient.ServerInfo.
func (r *Runtime) MCPServers(cwd string) []mcpclient.ServerInfo { return r.mcp.List(cwd) }

// MCPTools lists the tools of session id's MCP servers.
func (r *Runtime) MCPTools(id string) []mcpclient.Tool {
	set, _ := r.mcp.Own(id)
	return set.Tools()
}

// withMCP adds session id's MCP servers' tools to base (nil: no plugins).
func (r *Runtime) withMCP(id string, base agent.Toolbox) agent.Toolbox {
	set, ok := r.mcp.of(id)
	if !ok {
		return base
	}
	return mcpTools{base: base, set: set, listed: &mcpListed{}}
}

// mcpTools is a session's tool list: the plugins' and its MCP servers'.
// An MCP tool whose name a plugin tool has is left out (the plugin's
// stays). An MCP tool is of kind read when its server annotates it
// readOnlyHint (see readHint), of no declared kind otherwise, and always
// needs permission; its calls are titled "server: tool" (the server's
// title for the tool, when it gives one, in place of the tool's name).
type mcpTools struct {
	base   agent.Toolbox
	set    *mcpclient.Set
	listed *mcpListed
}

// mcpListed is the MCP tools of the last list mcpTools gave the loop, by
// name: what Preview titles and readHint lets through.
type mcpListed struct {
	mu    sync.Mutex // guards tools
	tools map[string]mcpclient.Tool
}

func (l *mcpListed) get(name string) (mcpclient.Tool, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.tools[name]
	return t, ok
}

// Tools implements agent.Toolbox.
func (m mcpTools) Tools() []agent.Tool {
	var list []agent.Tool
	if m.base != nil {
		list = m.base.Tools()
	}
	return m.add(list)
}

// HoldTools implements agent.ToolHolder.
func (m mcpTools) HoldTools() ([]agent.Tool, func()) {
	if h, ok := m.base.(agent.ToolHolder); ok {
		list, release := h.HoldTools()
		return m.add(list), release
	}
	return m.Tools(), func() {}
}

func (m mcpTools) add(list []agent.Tool) []agent.Tool {
	taken := make(map[string]bool, len(list))
	for _, t := range list {
		taken[t.Spec.Name] = true
	}
	listed := map[string]mcpclient.Tool{}
	for _, t := range m.set.Tools() {
		if taken[t.Spec.Name] {
			continue
		}
		srv := t.Server
		tool := agent.Tool{Spec: t.Spec, NeedsPermission: true, ConcurrencySafe: t.ReadOnly, MCP: &srv}
		if t.ReadOnly {
			tool.Kind = permission.KindRead
		}
		list = append(list, tool)
		listed[t.Spec.Name] = t
	}
	m.listed.mu.Lock()
	m.listed.tools = listed
	m.listed.mu.Unlock()
	return list
}

// Call implements agent.Toolbox.
func (m mcpTools) Call(ctx context.Context, c agent.Call) agent.Result {
	if c.Plugin == nil && m.set.Has(c.Name) {
		r := m.set.Call(ctx, c.Name, []byte(c.Args))
		return agent.Result{Content: r.Content, IsError: r.IsError}
	}
	if m.base == nil {
		return agent.Result{Content: "no tool " + c.Name, IsError: true}
	}
	return m.base.Call(ctx, c)
}

// Preview implements agent.Previewer: an MCP call's title, "server: tool"
// (the server's title for the tool in place of its name when it gives
// one), logged on its tool/call as a plugin's preview is; a plugin call's
// preview is the plugin's.
func (m mcpTools) Preview(ctx context.Context, c agent.Call) agent.Meta {
	if c.Plugin == nil {
		if t, ok := m.listed.get(c.Name); ok {
			return agent.Meta{Title: mcpTitle(t)}
		}
	}
	if pv, ok := m.base.(agent.Previewer); ok {
		return pv.Preview(ctx, c)
	}
	return agent.Meta{}
}

// mcpTitle is what an editor shows of a call to t.
func mcpTitle(t mcpclient.Tool) string {
	name := t.Title
	if name == "" {
		name = t.Tool
	}
	return t.Server.Name + ": " + name
}

// readHint returns what says whether a tool of tools' last list is an MCP
// tool its server annotated readOnlyHint; nil when tools has no MCP
// tools. The permission check treats such a call as a read: where the
// session's mode would ask, it runs (in read-only, ask and accept-edits
// mode alike, as a plugin's read tools do); deny and ask rules and "always
// reject" answers still apply, and a permission event records it. The
// hint is the server's word, not a promise: a rule can ask or deny.
func readHint(tools agent.Toolbox) func(tool string) bool {
	m, ok := tools.(mcpTools)
	if !ok {
		return nil
	}
	return func(tool string) bool {
		t, ok := m.listed.get(tool)
		return ok && t.ReadOnly
	}
}
