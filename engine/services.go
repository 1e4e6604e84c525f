package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi"
)

// loopTools adapts the plugin toolbox to the loop's Toolbox interface.
type loopTools struct{ tb *toolbox.Toolbox }

// Tools implements agent.Toolbox.
func (a loopTools) Tools() []agent.Tool { return agentTools(a.tb.Tools()) }

func agentTools(list []toolbox.Tool) []agent.Tool {
	out := make([]agent.Tool, len(list))
	for i, t := range list {
		p := t.Plugin
		out[i] = agent.Tool{Spec: t.Spec, ConcurrencySafe: t.ConcurrencySafe, NeedsPermission: t.NeedsPermission,
			Kind: builtinToolKind(t.Spec.Name), Plugin: &p}
	}
	return out
}

// builtinToolKind is a STOPGAP until plugins declare their tools' kinds in
// Describe (issue 13 part 3): the kind of the built-in tools, by name;
// "" (unknown) for any other tool. Permission modes decide by kind.
// Replace it with the kind the plugin declares.
func builtinToolKind(name string) string {
	switch name {
	case "read":
		return permission.KindRead
	case "write", "edit":
		return permission.KindEdit
	case "grep", "glob":
		return permission.KindSearch
	case "bash":
		return "execute"
	case "todo_write":
		return permission.KindThink
	}
	return ""
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
	}, c.Progress)
	out := agent.Result{Content: r.Content, IsError: r.IsError}
	for _, e := range r.Events {
		out.Events = append(out.Events, agent.Emitted{Type: event.Type(e.Type), Data: e.Data})
	}
	return out
}

// registry is a mutex-guarded map by session id.
type registry[V any] struct {
	mu sync.Mutex // guards m
	m  map[string]V
}

func (r *registry[V]) set(id string, v V) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = make(map[string]V)
	}
	r.m[id] = v
}

func (r *registry[V]) remove(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, id)
}

func (r *registry[V]) get(id string) (V, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.m[id]
	return v, ok
}

// openSessions is the set of sessions this process has open, by id: what
// the host services answer plugins from. Every answer is projected from
// the session's log; nothing here holds state of its own.
type openSessions struct{ registry[*session.Session] }

func (o *openSessions) add(s *session.Session) { o.registry.set(s.ID(), s) }

// approvers are the approvers of the turns running now, by session id: a
// child agent's permission questions go to its root's client. They are
// connections, not session state: nothing here needs to survive a restart.
type approvers struct{ registry[agent.Approver] }

func (a *approvers) set(id string, ap agent.Approver) (unset func()) {
	a.registry.set(id, ap)
	return func() { a.registry.remove(id) }
}

// ReadState implements pluginapi.HostServices: the session's todo list and
// cwd, from its log.
func (r *Runtime) ReadState(_ context.Context, req pluginapi.ReadStateRequest) (pluginapi.ReadStateResponse, error) {
	s, ok := r.sessions.get(req.SessionID)
	if !ok {
		return pluginapi.ReadStateResponse{}, fmt.Errorf("read state: no open session %q", req.SessionID)
	}
	resp := pluginapi.ReadStateResponse{Cwd: s.Cwd()}
	for _, t := range s.Todos() {
		resp.Todos = append(resp.Todos, pluginapi.Todo{Content: t.Content, Status: string(t.Status)})
	}
	return resp, nil
}

// RequestPermission implements pluginapi.Permissions: a plugin's own
// question goes to whoever answers for the session's running turn (the
// editor or the terminal), through its policy. The answer holds for this
// request only; it is not logged (the loop logs its own checks).
func (r *Runtime) RequestPermission(ctx context.Context, req pluginapi.PermissionRequest) (pluginapi.PermissionResponse, error) {
	ap, ok := r.approvers.get(req.SessionID)
	if !ok {
		return pluginapi.PermissionResponse{Reason: "no one to ask: session " + req.SessionID + " has no running turn"}, nil
	}
	a, err := ap.Approve(ctx, agent.ApprovalRequest{SessionID: req.SessionID, CallID: req.CallID,
		Tool: req.Tool, Args: string(req.Args), Title: req.Title, Once: true})
	if err != nil {
		return pluginapi.PermissionResponse{}, err
	}
	reason := a.Reason
	if !a.Decision.Allows() && reason == "" {
		reason = "permission denied by user"
	}
	return pluginapi.PermissionResponse{Allowed: a.Decision.Allows(), Reason: reason}, nil
}

// subagentApprover asks the root client about a child's calls, naming the
// subagent and showing the question on the parent's subagent tool call.
type subagentApprover struct {
	inner        agent.Approver
	parentCallID string
	label        string
}

// Approve implements agent.Approver.
func (a subagentApprover) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Approval, error) {
	what := req.Tool
	if cmd := permission.Command([]byte(req.Args)); cmd != "" {
		what += ": " + cmd
	}
	if req.Title == "" {
		req.Title = fmt.Sprintf("subagent %q to run %s", a.label, clip(what, 200))
	}
	req.CallID = a.parentCallID
	return a.inner.Approve(ctx, req)
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// SpawnSubagent implements pluginapi.Subagents: it runs a child session of
// the caller's and returns its answer, with its session and usage noted.
func (r *Runtime) SpawnSubagent(ctx context.Context, req pluginapi.SubagentRequest, progress pluginapi.Progress) (pluginapi.SubagentResult, error) {
	parent, ok := r.approvers.get(req.ParentSessionID)
	if !ok {
		return pluginapi.SubagentResult{}, fmt.Errorf("spawn subagent: session %s has no running turn", req.ParentSessionID)
	}
	child := subagentApprover{inner: parent, parentCallID: req.ParentCallID, label: req.Description}
	var unset func()
	res, err := r.subagents.Run(ctx, subagent.Request{
		ParentSessionID: req.ParentSessionID, ParentCallID: req.ParentCallID,
		Description: req.Description, Prompt: req.Prompt, Approver: child,
		Opened: func(s *session.Session) {
			r.sessions.add(s)
			unset = r.approvers.set(s.ID(), child)
		},
		Closed: func(s *session.Session) {
			unset()
			r.sessions.remove(s.ID())
		},
	}, progress)
	var serr *subagent.Error
	switch {
	case errors.As(err, &serr):
		return pluginapi.SubagentResult{Text: serr.Error() + footer(serr.SessionID, serr.Usage.InputTokens, serr.Usage.OutputTokens), IsError: true}, nil
	case err != nil:
		return pluginapi.SubagentResult{}, err
	}
	return pluginapi.SubagentResult{Text: strings.TrimSpace(res.Text) + footer(res.SessionID, res.Usage.InputTokens, res.Usage.OutputTokens)}, nil
}

// footer notes the child's session and usage under its answer.
func footer(id string, in, out int) string {
	if id == "" {
		return ""
	}
	if in+out == 0 {
		return fmt.Sprintf("\n\n[subagent session %s]", id)
	}
	return fmt.Sprintf("\n\n[subagent session %s · %d input, %d output tokens]", id, in, out)
}
