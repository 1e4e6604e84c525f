package services

import (
	"testing"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
)

// TestSubagentMCPTitle: a child's question about an MCP call names the
// subagent and the tool by its title; one about any other tool by name.
func TestSubagentMCPTitle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		req  agent.ApprovalRequest
		want string
	}{
		{agent.ApprovalRequest{Tool: "mcp__gh__create_issue", ToolTitle: "gh: Create issue", Args: `{"title":"x"}`}, `subagent "tests" to run gh: Create issue`},
		{agent.ApprovalRequest{Tool: "write", Args: `{"file_path":"a"}`}, `subagent "tests" to run write`},
	} {
		rec := &recorder{ans: agent.Approval{Decision: event.AllowOnce}}
		if _, err := (subagentApprover{inner: rec, parentCallID: "call-1", label: "tests"}).Approve(t.Context(), tc.req); err != nil {
			t.Fatal(err)
		}
		if len(rec.got) != 1 || rec.got[0].Title != tc.want || rec.got[0].Tool != tc.req.Tool {
			t.Errorf("asked %+v; want titled %q, the tool %s", rec.got, tc.want, tc.req.Tool)
		}
	}
}
