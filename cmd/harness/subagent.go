package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/pluginapi"
)

// approvers are the approvers of the turns running now, by session id: a
// child agent's permission questions go to its root's client. They are
// connections, not session state: nothing here needs to survive a restart.
type approvers struct {
	mu sync.Mutex // guards m
	m  map[string]agent.Approver
}

func (a *approvers) set(id string, ap agent.Approver) (unset func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = make(map[string]agent.Approver)
	}
	a.m[id] = ap
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		delete(a.m, id)
	}
}

func (a *approvers) get(id string) (agent.Approver, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ap, ok := a.m[id]
	return ap, ok
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

// SpawnSubagent implements pluginapi.Subagents: it runs a child session of
// the caller's and returns its answer, with its session and usage noted.
func (h hostServices) SpawnSubagent(ctx context.Context, req pluginapi.SubagentRequest, progress pluginapi.Progress) (pluginapi.SubagentResult, error) {
	host := h.host
	parent, ok := host.approvers.get(req.ParentSessionID)
	if !ok {
		return pluginapi.SubagentResult{}, fmt.Errorf("spawn subagent: session %s has no running turn", req.ParentSessionID)
	}
	child := subagentApprover{inner: parent, parentCallID: req.ParentCallID, label: req.Description}
	var unset func()
	res, err := host.subagents.Run(ctx, subagent.Request{
		ParentSessionID: req.ParentSessionID, ParentCallID: req.ParentCallID,
		Description: req.Description, Prompt: req.Prompt, Approver: child,
		Opened: func(s *session.Session) {
			host.sessions.add(s)
			unset = host.approvers.set(s.ID(), child)
		},
		Closed: func(s *session.Session) {
			unset()
			host.sessions.remove(s.ID())
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
