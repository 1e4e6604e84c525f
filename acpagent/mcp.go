package acpagent

import (
	"context"

	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
)

// MCPTransports implements acpbridge.MCPAgent: stdio, streamable http and
// sse, all through the official Go MCP SDK.
func (a *Agent) MCPTransports() (http, sse bool) { return true, true }

// ConnectMCP implements acpbridge.MCPAgent: the editor's servers, with the
// user's (and a trusted project's), belong to the session.
func (a *Agent) ConnectMCP(_ context.Context, s acpbridge.Session, servers []acpbridge.MCPServer) {
	as, ok := s.(*acpSession)
	if !ok {
		return
	}
	list := make([]engine.MCPServer, 0, len(servers))
	for _, m := range servers {
		c := engine.MCPServer{Name: m.Name, Type: m.Type, Command: m.Command, Args: m.Args, URL: m.URL,
			Source: "the editor (mcpServers)"}
		for _, e := range m.Env {
			c.Env = append(c.Env, engine.MCPEnvVar{Name: e.Name, Value: e.Value})
		}
		for _, h := range m.Headers {
			c.Headers = append(c.Headers, engine.MCPEnvVar{Name: h.Name, Value: h.Value})
		}
		list = append(list, c)
	}
	a.h.ConnectMCP(as.Session, list)
}
