package acpagent

import (
	"context"
	"strings"

	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/mcpclient"
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

// WatchNotices implements acpbridge.Noticer: the notices of the
// session's MCP servers (a start that failed, a server that died or is
// down, a configuration left out, a server up again after a failure),
// each once, with the server's last stderr lines, redacted. The engine
// ends the watch when the session closes.
//
// The warning that the fixed part of the window (system prompt and tool
// schemas) passes half of it is a notice too, sent when a usage update
// first carries it, once: an editor shows it,
// where _meta.fixedWarning alone is read by none.
func (s *acpSession) WatchNotices(f func(acpbridge.Notice)) {
	s.mu.Lock()
	s.notify = f
	s.mu.Unlock()
	s.h.WatchMCP(s.ID(), func(st engine.MCPStatus) {
		if n, ok := mcpNotice(st); ok {
			f(n)
		}
	})
}

// mcpNotice is the notice of st, if it is one: its first line the title,
// the rest (the server's stderr) the text.
func mcpNotice(st engine.MCPStatus) (acpbridge.Notice, bool) {
	if !st.Notice {
		return acpbridge.Notice{}, false
	}
	title, text, _ := strings.Cut(st.Text(), "\n")
	sev := acpbridge.NoticeWarning
	switch {
	case st.State == mcpclient.StatusUp:
		sev = acpbridge.NoticeInfo
	case st.Down:
		sev = acpbridge.NoticeError
	}
	return acpbridge.Notice{Severity: sev, Title: title, Text: text}, true
}
