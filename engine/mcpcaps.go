package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/shorten"
)

// What MCP servers ask of a session's front end while one of its tool
// calls runs (mcpclient.Options.Elicit and Sample), and what they add to
// a session besides tools: roots, prompts, instructions.

// MCPElicitRequest is an MCP server's question to the user
// (elicitation/create, form mode).
type MCPElicitRequest = mcpclient.ElicitRequest

// MCPElicitResult is the user's answer to an MCPElicitRequest.
type MCPElicitResult = mcpclient.ElicitResult

// Elicitor is implemented by a turn's Live or Asker whose front end can
// put an MCP server's question to the user (the editor through ACP
// elicitation/create, the terminal); callID is the tool call the question
// comes during. It answers mcpclient.ActionDecline when it cannot ask
// (an editor without elicitation.form, no terminal). Without one a
// question is declined.
type Elicitor interface {
	Elicit(ctx context.Context, callID string, req MCPElicitRequest) (MCPElicitResult, error)
}

// frontEnd is what a running turn's front end can be asked for its
// session's MCP servers.
type frontEnd struct {
	elicitor Elicitor         // nil: questions are declined
	asker    permission.Asker // nil: sampling is refused
	// callID, when set, is the call the front end shows for every call of
	// the session: a subagent child's, whose calls the editor does not
	// see, are its parent's subagent call.
	callID string
}

// callOf is the call id the front end knows call by.
func (fe frontEnd) callOf(call mcpclient.CallInfo) string {
	if fe.callID != "" {
		return fe.callID
	}
	return call.CallID
}

// lendFrontEnd has child session id use the front end of its parent's
// turn, its questions shown on the parent's call parentCall, until unset.
func (r *Runtime) lendFrontEnd(child, parent, parentCall string) (unset func()) {
	fe, ok := r.frontEnds.get(parent)
	if !ok {
		return func() {}
	}
	if fe.callID == "" {
		fe.callID = parentCall
	}
	r.frontEnds.set(child, fe)
	return func() { r.frontEnds.remove(child) }
}

// frontEnd registers the front end of s's turn (live, else asker, as an
// Elicitor; asker for sampling) until unset.
func (r *Runtime) setFrontEnd(id string, live any, asker permission.Asker) (unset func()) {
	fe := frontEnd{asker: asker}
	if e, ok := live.(Elicitor); ok {
		fe.elicitor = e
	} else if e, ok := asker.(Elicitor); ok {
		fe.elicitor = e
	}
	r.frontEnds.set(id, fe)
	return func() { r.frontEnds.remove(id) }
}

// elicitMCP puts a server's question to the front end of the session
// whose call it comes during.
func (r *Runtime) elicitMCP(ctx context.Context, req MCPElicitRequest) (MCPElicitResult, error) {
	call, _ := mcpclient.CallOf(ctx)
	fe, ok := r.frontEnds.get(call.SessionID)
	if !ok || fe.elicitor == nil {
		r.log.Info("MCP server's question declined: no one to ask", "server", req.Server, "session", call.SessionID)
		return MCPElicitResult{Action: mcpclient.ActionDecline}, nil
	}
	return fe.elicitor.Elicit(ctx, fe.callOf(call), req)
}

// sampleMCP serves a server's sampling request with the model of the
// session whose call it comes during, once the user allows it: asked each
// time, as a permission question about the call (no "always").
func (r *Runtime) sampleMCP(ctx context.Context, req mcpclient.SampleRequest) (mcpclient.SampleResult, error) {
	call, _ := mcpclient.CallOf(ctx)
	fe, ok := r.frontEnds.get(call.SessionID)
	s, open := r.sessions.Session(call.SessionID)
	if !ok || fe.asker == nil || !open {
		return mcpclient.SampleResult{}, errors.New("no one can allow it here (no front end to ask); refused")
	}
	last := ""
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1].Text
	}
	d, err := fe.asker.Ask(ctx, permission.Request{SessionID: call.SessionID, CallID: fe.callOf(call),
		Tool: "mcp__" + req.Server + "__sampling", Cwd: s.Cwd(), Once: true, NoAlways: true,
		Title: fmt.Sprintf("MCP server %s asks the model: %s", req.Server, shorten.Runes(shorten.OneLine(last), 120))})
	if err != nil {
		return mcpclient.SampleResult{}, fmt.Errorf("ask the user: %w", err)
	}
	if d != event.AllowOnce && d != event.AllowAlways {
		return mcpclient.SampleResult{}, errors.New("the user refused")
	}
	lr := llm.Request{System: req.System, MaxTokens: req.MaxTokens}
	for _, m := range req.Messages {
		role := llm.RoleUser
		if m.Role == "assistant" {
			role = llm.RoleAssistant
		}
		lr.Messages = append(lr.Messages, llm.Message{Role: role, Text: m.Text})
	}
	info, _ := r.SessionModel(s)
	var text strings.Builder
	for c, err := range (sessionModel{r: r, s: s}).Stream(ctx, lr) {
		if err != nil {
			return mcpclient.SampleResult{}, fmt.Errorf("the model: %w", err)
		}
		if c.Kind == llm.ChunkText {
			text.WriteString(c.Text)
		}
	}
	return mcpclient.SampleResult{Text: text.String(), Model: info.Name}, nil
}

// sessionRoots are the roots session id's MCP servers are offered: its
// folder, then the folders it added.
func (r *Runtime) sessionRoots(id, cwd string) []string {
	return append([]string{cwd}, r.sessionSandbox(id).AddDirs...)
}

// setMCPRoots tells session s's MCP servers its roots.
func (r *Runtime) setMCPRoots(s *session.Session) {
	if set, ok := r.mcp.Own(s.ID()); ok {
		set.SetRoots(r.sessionRoots(s.ID(), s.Cwd()))
	}
}

// MCPPrompts lists the prompts of session id's MCP servers that are up,
// each a slash command /<server>:<prompt> (mcpclient.Prompt.Command).
func (r *Runtime) MCPPrompts(id string) []mcpclient.Prompt {
	set, _ := r.mcp.of(id)
	return set.Prompts()
}

// WatchMCPPrompts has f called (in a goroutine of its own) each time one of
// session id's MCP servers comes up or says its prompts changed; nothing
// when the session has no servers.
func (r *Runtime) WatchMCPPrompts(id string, f func()) {
	if set, ok := r.mcp.Own(id); ok {
		set.Watch(f)
	}
}

// mcpInstructions is what session id's MCP servers add to its system
// prompt (mcpclient.Set.Instructions).
func (r *Runtime) mcpInstructions(id string) string {
	set, _ := r.mcp.of(id)
	return set.Instructions()
}

// withMCPInstructions is the SystemFor of a turn of session id: the
// loop's system prompt (systemFor, else system) followed by what the
// session's MCP servers up at that step say in their instructions.
func (r *Runtime) withMCPInstructions(id string, systemFor func([]string) string, system string) func([]string) string {
	return func(tools []string) string {
		base := system
		if systemFor != nil {
			base = systemFor(tools)
		}
		return base + r.mcpInstructions(id)
	}
}
