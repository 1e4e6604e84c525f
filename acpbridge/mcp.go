package acpbridge

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// MCPServer is an MCP server the client asks the agent to connect for a
// session (ACP's McpServer): a command to run (Type "stdio") or a URL to
// reach (Type "http" or "sse"). Env and header values are the client's
// secrets to pass on: never logged.
type MCPServer struct {
	Name    string
	Type    string
	Command string
	Args    []string
	Env     []NameValue
	URL     string
	Headers []NameValue
}

// NameValue is an environment variable or an HTTP header.
type NameValue struct{ Name, Value string }

// MCPAgent is an Agent that connects the client's MCP servers to its
// sessions. The bridge advertises in initialize's mcpCapabilities the
// transports MCPTransports names (stdio always), hands ConnectMCP the
// servers of session/new, session/load and session/resume that use them,
// and warns about the others, which it drops.
type MCPAgent interface {
	Agent
	// MCPTransports says which transports besides stdio ConnectMCP takes.
	MCPTransports() (http, sse bool)
	// ConnectMCP connects servers (possibly none: the agent's own
	// configured servers still start) to s, a session the bridge has just
	// opened; they belong to s and stop when it is closed. A server that
	// fails is the agent's to report; the session goes on without it.
	ConnectMCP(ctx context.Context, s Session, servers []MCPServer)
}

// mcpCapabilities is what initialize advertises.
func (b *bridge) mcpCapabilities() acp.McpCapabilities {
	ma, ok := b.agent.(MCPAgent)
	if !ok {
		return acp.McpCapabilities{}
	}
	h, s := ma.MCPTransports()
	return acp.McpCapabilities{Http: h, Sse: s}
}

// connectMCP hands a newly opened session's servers to the agent, or
// warns that they are ignored when it connects none.
func (b *bridge) connectMCP(ctx context.Context, s Session, servers []acp.McpServer) {
	ma, ok := b.agent.(MCPAgent)
	if !ok {
		if len(servers) > 0 {
			b.log.Warn("MCP servers are not supported; ignoring them", "count", len(servers))
		}
		return
	}
	ma.ConnectMCP(ctx, s, b.mcpServers(servers))
}

// mcpServers converts the client's servers, dropping with a warning those
// whose transport was not advertised. Only names are logged.
func (b *bridge) mcpServers(servers []acp.McpServer) []MCPServer {
	caps := b.mcpCapabilities()
	var out []MCPServer
	for _, s := range servers {
		switch {
		case s.Stdio != nil:
			m := MCPServer{Name: s.Stdio.Name, Type: "stdio", Command: s.Stdio.Command, Args: s.Stdio.Args}
			for _, e := range s.Stdio.Env {
				m.Env = append(m.Env, NameValue{e.Name, e.Value})
			}
			out = append(out, m)
		case s.Http != nil && caps.Http:
			out = append(out, MCPServer{Name: s.Http.Name, Type: "http", URL: s.Http.Url, Headers: headers(s.Http.Headers)})
		case s.Sse != nil && caps.Sse:
			out = append(out, MCPServer{Name: s.Sse.Name, Type: "sse", URL: s.Sse.Url, Headers: headers(s.Sse.Headers)})
		default:
			b.log.Warn("MCP server ignored: its transport is not one initialize advertised (mcpCapabilities)", "server", mcpName(s))
		}
	}
	return out
}

func headers(hs []acp.HttpHeader) []NameValue {
	var out []NameValue
	for _, h := range hs {
		out = append(out, NameValue{h.Name, h.Value})
	}
	return out
}

func mcpName(s acp.McpServer) string {
	switch {
	case s.Http != nil:
		return s.Http.Name
	case s.Sse != nil:
		return s.Sse.Name
	case s.Acp != nil:
		return s.Acp.Name
	}
	return ""
}
