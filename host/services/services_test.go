package services

import (
	"context"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/pluginapi"
)

// testApprovers answer for the sessions they hold, by id.
type testApprovers map[string]agent.Approver

func (m testApprovers) Approver(id string) (agent.Approver, bool) { a, ok := m[id]; return a, ok }

// recorder records what it is asked and answers with its approval.
type recorder struct {
	got []agent.ApprovalRequest
	ans agent.Approval
}

func (r *recorder) Approve(_ context.Context, req agent.ApprovalRequest) (agent.Approval, error) {
	r.got = append(r.got, req)
	return r.ans, nil
}

// spawner answers every child with its result or error, asking its
// approver once about a bash call first.
type spawner struct {
	res subagent.Result
	err error
}

func (s spawner) Spawn(ctx context.Context, _ pluginapi.SubagentRequest, ap agent.Approver, _ pluginapi.Progress) (subagent.Result, error) {
	if _, err := ap.Approve(ctx, agent.ApprovalRequest{SessionID: "child", CallID: "c9", Tool: "bash", Args: `{"command":"make test"}`}); err != nil {
		return subagent.Result{}, err
	}
	return s.res, s.err
}

// TestRequestPermission: a plugin's question goes to the session's
// running turn, once; without one it is refused with a reason, and a
// refusal without one says the user denied it.
func TestRequestPermission(t *testing.T) {
	t.Parallel()
	rec := &recorder{ans: agent.Approval{Decision: event.RejectOnce}}
	h := &Host{Approvers: testApprovers{"s1": rec}}
	resp, err := h.RequestPermission(t.Context(), pluginapi.PermissionRequest{SessionID: "s1", CallID: "c1", Tool: "fs_write", Title: "write /etc/x"})
	if err != nil || resp.Allowed || resp.Reason != "permission denied by user" {
		t.Errorf("rejected: %+v, %v; want denied by user", resp, err)
	}
	if len(rec.got) != 1 || !rec.got[0].Once || rec.got[0].Title != "write /etc/x" {
		t.Errorf("asked %+v; want once, with the plugin's title", rec.got)
	}
	resp, err = h.RequestPermission(t.Context(), pluginapi.PermissionRequest{SessionID: "idle"})
	if err != nil || resp.Allowed || !strings.Contains(resp.Reason, "no running turn") {
		t.Errorf("no turn: %+v, %v; want refused, saying so", resp, err)
	}
}

// TestSpawnSubagent: a child's questions go to the parent's approver on
// the parent's call, titled with the subagent; its answer, or its error
// as an error result, carries its session and usage.
func TestSpawnSubagent(t *testing.T) {
	t.Parallel()
	req := pluginapi.SubagentRequest{ParentSessionID: "p", ParentCallID: "call-1", Description: "tests", Prompt: "run the tests"}
	for _, tc := range []struct {
		name  string
		sp    spawner
		text  string
		isErr bool
	}{
		{"answer", spawner{res: subagent.Result{SessionID: "k1", Text: " all green \n", Usage: event.Usage{InputTokens: 10, OutputTokens: 2}}},
			"all green\n\n[subagent session k1 · 10 input, 2 output tokens]", false},
		{"no usage", spawner{res: subagent.Result{SessionID: "k2", Text: "done"}}, "done\n\n[subagent session k2]", false},
		{"child failed", spawner{err: &subagent.Error{Kind: subagent.ErrBudget, SessionID: "k3", Message: "over budget"}}, "\n\n[subagent session k3]", true},
	} {
		rec := &recorder{ans: agent.Approval{Decision: event.AllowOnce}}
		h := &Host{Approvers: testApprovers{"p": rec}, Subagents: tc.sp}
		res, err := h.SpawnSubagent(t.Context(), req, nil)
		if err != nil || res.IsError != tc.isErr || !strings.HasSuffix(res.Text, tc.text) {
			t.Errorf("%s: %+v, %v; want text ending %q, error %v", tc.name, res, err, tc.text, tc.isErr)
		}
		if len(rec.got) != 1 || rec.got[0].CallID != "call-1" || rec.got[0].Title != `subagent "tests" to run bash: make test` {
			t.Errorf("%s: the parent was asked %+v; want on call-1, titled with the subagent", tc.name, rec.got)
		}
	}
	h := &Host{Approvers: testApprovers{}, Subagents: spawner{}}
	if _, err := h.SpawnSubagent(t.Context(), req, nil); err == nil || !strings.Contains(err.Error(), "no running turn") {
		t.Errorf("no parent turn: %v; want refused", err)
	}
}
