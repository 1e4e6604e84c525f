package engine

import (
	"context"
	"os"
	"strings"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/session"
)

// MCPServer is one MCP server a front end connects to a session (the
// editor's, from session/new).
type MCPServer = mcpclient.ServerConfig

// MCPEnvVar is a variable of an MCPServer's env, or one of its headers.
type MCPEnvVar = mcpclient.EnvVar

// mcpSets are the MCP servers of the open sessions, by session id.
type mcpSets struct{ registry[*mcpclient.Set] }

// ConnectMCP connects the MCP servers of session s: the user's mcp.json
// (Config.MCPUserFile), the project's .mcp.json in the session's folder
// when Config.MCPProject trusts it, and servers (the editor's), a later
// source's server replacing an earlier one of the same name. They start in
// the background (the first step waits for them, bounded), belong to s and
// stop when it is closed. A server that fails is one warning line; the
// session goes on without it. Calling it again replaces the servers.
func (r *Runtime) ConnectMCP(s *session.Session, servers []MCPServer) {
	getenv := r.cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var lists [][]MCPServer
	if r.cfg.MCPUserFile != "" {
		list, err := mcpclient.LoadFile(r.cfg.MCPUserFile, getenv)
		if err != nil {
			r.log.Warn("some MCP servers of the user's file are left out: " + err.Error())
		}
		lists = append(lists, list)
	}
	project := mcpclient.ProjectFile(s.Cwd())
	switch list, err := mcpclient.LoadFile(project, getenv); {
	case len(list) > 0 && !r.cfg.MCPProject:
		names := make([]string, len(list))
		for i, c := range list {
			names[i] = c.Name
		}
		r.log.Warn("the project's MCP servers are not started: " + project + " would run commands from the repository (" +
			strings.Join(names, ", ") + "); trust it with HARNESS_MCP_PROJECT=1, or copy the servers to " + orNone(r.cfg.MCPUserFile))
	case r.cfg.MCPProject:
		if err != nil {
			r.log.Warn("some MCP servers of the project's file are left out: " + err.Error())
		}
		lists = append(lists, list)
	}
	lists = append(lists, servers)
	all := mcpclient.Merge(lists...)
	r.closeMCP(s.ID())
	if len(all) == 0 {
		return
	}
	environ := r.cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	set := mcpclient.Start(all, mcpclient.Options{
		Logger: r.log.Named("mcp"), Environ: environ, PassEnv: r.cfg.PluginEnv, Cwd: s.Cwd(),
		ClientName: "harness", ClientVersion: r.cfg.HostVersion, StartTimeout: r.cfg.MCPStartTimeout,
	})
	r.mcp.set(s.ID(), set)
}

func orNone(s string) string {
	if s == "" {
		return "the user's mcp.json"
	}
	return s
}

// closeMCP stops session id's MCP servers, if any.
func (r *Runtime) closeMCP(id string) {
	set, ok := r.mcp.get(id)
	if !ok {
		return
	}
	r.mcp.remove(id)
	_ = set.Close()
}

// closeAllMCP stops every session's MCP servers.
func (r *Runtime) closeAllMCP() {
	r.mcp.mu.Lock()
	ids := make([]string, 0, len(r.mcp.m))
	for id := range r.mcp.m {
		ids = append(ids, id)
	}
	r.mcp.mu.Unlock()
	for _, id := range ids {
		r.closeMCP(id)
	}
}

// MCPTools lists the tools of session id's MCP servers.
func (r *Runtime) MCPTools(id string) []mcpclient.Tool {
	set, _ := r.mcp.get(id)
	return set.Tools()
}

// withMCP adds session id's MCP servers' tools to base (nil: no plugins).
func (r *Runtime) withMCP(id string, base agent.Toolbox) agent.Toolbox {
	set, ok := r.mcp.get(id)
	if !ok {
		return base
	}
	return mcpTools{base: base, set: set}
}

// mcpTools is a session's tool list: the plugins' and its MCP servers'.
// An MCP tool whose name a plugin tool has is left out (the plugin's
// stays).
type mcpTools struct {
	base agent.Toolbox
	set  *mcpclient.Set
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
	for _, t := range m.set.Tools() {
		if taken[t.Spec.Name] {
			continue
		}
		srv := t.Server
		list = append(list, agent.Tool{Spec: t.Spec, NeedsPermission: true, ConcurrencySafe: t.ReadOnly, MCP: &srv})
	}
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
