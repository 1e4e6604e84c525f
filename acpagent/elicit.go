package acpagent

import (
	"context"

	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
)

// editorQuestions asks the editor about tool calls and puts the session's
// MCP servers' questions to it (engine.Elicitor: ACP elicitation/create).
type editorQuestions struct {
	editorAsker
	e acpbridge.Elicitor
}

// Elicit implements engine.Elicitor.
func (q editorQuestions) Elicit(ctx context.Context, callID string, req engine.MCPElicitRequest) (engine.MCPElicitResult, error) {
	a, err := q.e.Elicit(ctx, callID, acpbridge.Elicitation{Message: "MCP server " + req.Server + " asks: " + req.Message, Schema: req.Schema})
	if err != nil {
		return engine.MCPElicitResult{}, err
	}
	return engine.MCPElicitResult{Action: a.Action, Content: a.Content}, nil
}
