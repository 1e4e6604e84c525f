package engine

import (
	"context"
	"sync"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/services"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/pluginapi"
)

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
// the host services answer plugins from (services.Sessions).
type openSessions struct{ registry[*session.Session] }

func (o *openSessions) add(s *session.Session)                     { o.set(s.ID(), s) }
func (o *openSessions) Session(id string) (*session.Session, bool) { return o.get(id) }

// approvers are the approvers of the turns running now, by session id: a
// child agent's permission questions go to its root's client
// (services.Approvers). They are connections, not session state.
type approvers struct{ registry[agent.Approver] }

func (a *approvers) set(id string, ap agent.Approver) (unset func()) {
	a.registry.set(id, ap)
	return func() { a.remove(id) }
}
func (a *approvers) Approver(id string) (agent.Approver, bool) { return a.get(id) }

// EditorFiles is implemented by a turn's live sink whose client is an
// editor that reads and writes files for the agent: while the turn runs,
// the plugins' text files go through it (services.EditorFiles).
type EditorFiles = services.EditorFiles

// editors are the editors of the turns running now, by session id (a
// child agent's are its root's; services.Editors).
type editors struct{ registry[EditorFiles] }

func (e *editors) set(id string, ed EditorFiles) (unset func()) {
	if ed == nil {
		return func() {}
	}
	e.registry.set(id, ed)
	return func() { e.remove(id) }
}
func (e *editors) Editor(id string) (EditorFiles, bool) { return e.get(id) }

// children runs the subagent tool's child sessions (services.Spawner): a
// child is known to the host services while it runs, with its parent's
// added folders, editor and MCP servers, its model and sandbox logged.
type children struct{ r *Runtime }

func (c children) Spawn(ctx context.Context, req pluginapi.SubagentRequest, approver agent.Approver, progress pluginapi.Progress) (subagent.Result, error) {
	r := c.r
	var unset func()
	mcp, hasMCP := r.mcp.of(req.ParentSessionID)
	return r.subagents.Run(ctx, subagent.Request{
		ParentSessionID: req.ParentSessionID, ParentCallID: req.ParentCallID,
		Description: req.Description, Prompt: req.Prompt, Approver: approver,
		Opened: func(s *session.Session) {
			r.sessions.add(s)
			if dirs, ok := r.sessionDirs.get(req.ParentSessionID); ok { // the parent's added folders too
				r.sessionDirs.set(s.ID(), dirs)
			}
			if err := r.logModel(s); err != nil { // a child runs on the default model
				r.log.Warn("subagent session: model not logged", "session", s.ID(), "err", err)
			}
			if err := r.logSandbox(s); err != nil { // its commands run in the same sandbox
				r.log.Warn("subagent session: sandbox not logged", "session", s.ID(), "err", err)
			}
			unsetApprover := r.approvers.set(s.ID(), approver)
			ed, _ := r.editors.get(req.ParentSessionID)
			unsetEditor := r.editors.set(s.ID(), ed)
			unlend := func() {}
			if hasMCP {
				unlend = r.mcp.Lend(s.ID(), mcp)
			}
			unsetFrontEnd := r.lendFrontEnd(s.ID(), req.ParentSessionID, req.ParentCallID) // its MCP servers' questions
			unset = func() { unsetApprover(); unsetEditor(); unlend(); unsetFrontEnd() }
		},
		Closed: func(s *session.Session) {
			unset()
			r.sessions.remove(s.ID())
			r.sessionDirs.remove(s.ID())
		},
	}, progress)
}
