package engine

import (
	"os"
	"strings"

	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/session"
)

// MCPServer is one MCP server a front end connects to a session (the
// editor's, from session/new).
type MCPServer = mcpclient.ServerConfig

// MCPEnvVar is a variable of an MCPServer's env, or one of its headers.
type MCPEnvVar = mcpclient.EnvVar

// mcpSets are the MCP servers of the open sessions, by session id, and
// (lent) those of the running subagent children, which use their root
// session's: a child's end does not stop them.
type mcpSets struct {
	registry[*mcpclient.Set]
	lent registry[*mcpclient.Set]
}

// of returns the MCP servers session id uses: its own, or its root's
// when it is a running child.
func (m *mcpSets) of(id string) (*mcpclient.Set, bool) {
	if set, ok := m.get(id); ok {
		return set, true
	}
	return m.lent.get(id)
}

// ConnectMCP connects the MCP servers of session s: the user's mcp.json
// (Config.MCPUserFile), the project's .mcp.json in the session's folder
// when Config.MCPProject trusts it, and servers (the editor's), a later
// source's server replacing an earlier one of the same name. They start in
// the background (the first step waits for them, bounded), belong to s and
// stop when it is closed. A server that fails is one warning line; the
// session goes on without it. Calling it again replaces the servers.
func (r *Runtime) ConnectMCP(s *session.Session, servers []MCPServer) {
	all, untrusted := r.mcpConfigs(s.Cwd(), servers)
	if len(untrusted) > 0 {
		names := make([]string, len(untrusted))
		for i, c := range untrusted {
			names[i] = c.Name
		}
		r.log.Warn("the project's MCP servers are not started: " + untrusted[0].Source + " would run commands from the repository (" +
			strings.Join(names, ", ") + "); trust it with HARNESS_MCP_PROJECT=1, or copy the servers to " + orNone(r.cfg.MCPUserFile))
	}
	r.closeMCP(s.ID())
	if len(all) == 0 {
		return
	}
	r.mcp.set(s.ID(), r.startMCP(all, s.Cwd()))
}

// mcpConfigs gathers the MCP servers of a session in folder cwd: the
// user's file, the project's when trusted, then servers, merged (a later
// source's server replaces an earlier one of the same name). untrusted
// are the project's servers left out because Config.MCPProject does not
// trust them.
func (r *Runtime) mcpConfigs(cwd string, servers []MCPServer) (all, untrusted []MCPServer) {
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
	project := mcpclient.ProjectFile(cwd)
	switch list, err := mcpclient.LoadFile(project, getenv); {
	case len(list) > 0 && !r.cfg.MCPProject:
		untrusted = list
	case r.cfg.MCPProject:
		if err != nil {
			r.log.Warn("some MCP servers of the project's file are left out: " + err.Error())
		}
		lists = append(lists, list)
	}
	lists = append(lists, servers)
	return mcpclient.Merge(lists...), untrusted
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
func (r *Runtime) MCPServers(cwd string) []mcpclient.ServerInfo {
	all, untrusted := r.mcpConfigs(cwd, nil)
	var out []mcpclient.ServerInfo
	if len(all) > 0 {
		set := r.startMCP(all, cwd)
		out = set.Servers()
		_ = set.Close()
	}
	for _, c := range untrusted {
		info := c.Info()
		info.Status, info.Err = mcpclient.StatusNotStarted, "the project's servers run commands from the repository; trust them with HARNESS_MCP_PROJECT=1"
		out = append(out, info)
	}
	return out
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
func (r *Runtime) MCPTools(id string) []mcpclient.ServerTool {
	set, _ := r.mcp.get(id)
	return set.Tools()
}
