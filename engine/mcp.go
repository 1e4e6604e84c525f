package engine

import (
	"os"

	"github.com/harness-dev/harness/host/mcpclient"
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
	r.setMCPRoots(s)
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
		Confine: r.mcpConfiner(), Elicit: r.elicitMCP, Sample: r.sampleMCP,
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
func (r *Runtime) MCPTools(id string) []mcpclient.ServerTool {
	set, _ := r.mcp.Own(id)
	return set.Tools()
}
