package acpbridge

import (
	"context"
	"encoding/json"
	"fmt"
)

// Elicitor is implemented by the Live the bridge hands to Session.Prompt:
// the host puts an MCP server's question (MCP elicitation/create, form
// mode) to the user through it, as ACP elicitation/create scoped to the
// session and the tool call callID, when the client advertised
// elicitation.form; otherwise the question is declined unasked.
type Elicitor interface {
	Elicit(ctx context.Context, callID string, q Elicitation) (ElicitAnswer, error)
}

// Elicitation is a question for the user: a message and the flat object
// schema of the answer (ACP's ElicitationSchema, MCP's requestedSchema).
type Elicitation struct {
	Message string
	Schema  json.RawMessage
}

// ElicitAnswer is the user's answer: Action "accept" with Content,
// "decline" or "cancel".
type ElicitAnswer struct {
	Action  string
	Content map[string]any
}

// methodElicitationCreate is ACP's elicitation/create (stable since
// 2026-07-24). The SDK's type for it lacks the session scope, so the
// bridge writes the request itself.
const methodElicitationCreate = "elicitation/create"

// elicitRequest is ACP's CreateElicitationRequest in form mode, scoped to
// a session and a tool call.
type elicitRequest struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	SessionID       string          `json:"sessionId"`
	ToolCallID      string          `json:"toolCallId,omitempty"`
}

// elicitResponse is ACP's CreateElicitationResponse.
type elicitResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicit implements Elicitor. The call's tool_call update goes out
// before the question. An answer with an action other than accept,
// decline or cancel is an error.
func (ts *turnStream) Elicit(ctx context.Context, callID string, q Elicitation) (ElicitAnswer, error) {
	if !ts.b.elicitForm.Load() {
		ts.b.log.Info("an MCP server's question declined: the client does not take elicitation.form", "session", ts.sess.ID())
		return ElicitAnswer{Action: "decline"}, nil
	}
	ts.mu.Lock()
	ts.catchUpLocked()
	ts.mu.Unlock()
	req := elicitRequest{Mode: "form", Message: q.Message, RequestedSchema: q.Schema, SessionID: ts.sess.ID(), ToolCallID: callID}
	var resp elicitResponse
	if err := ts.b.conn.Call(ctx, methodElicitationCreate, req, &resp); err != nil {
		if ctx.Err() != nil {
			return ElicitAnswer{}, ctx.Err()
		}
		return ElicitAnswer{}, fmt.Errorf("ask the editor an MCP server's question: %w", err)
	}
	switch resp.Action {
	case "accept":
		return ElicitAnswer{Action: resp.Action, Content: resp.Content}, nil
	case "decline", "cancel":
		return ElicitAnswer{Action: resp.Action}, nil
	}
	return ElicitAnswer{}, fmt.Errorf("ask the editor an MCP server's question: it answered the unknown action %q", resp.Action)
}
