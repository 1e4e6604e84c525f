package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallInfo names the tool call a server's request (elicitation,
// sampling) comes during: the session and the call the front end shows.
type CallInfo struct{ SessionID, CallID string }

type callKey struct{}

// WithCall returns ctx carrying c: the engine gives Set.Call such a
// context, and the Elicit and Sample callbacks get it back.
func WithCall(ctx context.Context, c CallInfo) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallOf returns the CallInfo ctx carries.
func CallOf(ctx context.Context) (CallInfo, bool) {
	c, ok := ctx.Value(callKey{}).(CallInfo)
	return c, ok
}

// Elicitation actions, MCP's and ACP's alike.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// ElicitRequest is a server's elicitation/create in form mode: a message
// and the flat object schema of the answer it wants.
type ElicitRequest struct {
	// Server names the server that asks.
	Server  string
	Message string
	// Schema is the requested schema, a JSON object whose properties are
	// strings, numbers, integers, booleans or arrays of enum strings.
	Schema json.RawMessage
}

// ElicitResult is the user's answer: ActionAccept with Content (the
// schema's properties), ActionDecline or ActionCancel.
type ElicitResult struct {
	Action  string
	Content map[string]any
}

// elicit answers the server's elicitation/create through Options.Elicit,
// with the context of the call in flight (WithCall: the session and call
// the question belongs to), ended when the call or the request ends. URL
// mode, a request outside a call and a host without Elicit are declined.
func (sv *server) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	decline := &mcp.ElicitResult{Action: ActionDecline}
	if req.Params.Mode == "url" {
		sv.log.Warn(fmt.Sprintf("MCP server %s asked to open a URL (URL elicitation); declined: harness takes form elicitation only", sv.cfg.Name))
		return decline, nil
	}
	callCtx, ok := sv.callContext(ctx)
	if !ok || sv.opts.Elicit == nil {
		sv.log.Warn(fmt.Sprintf("MCP server %s asked the user a question outside a tool call, or with no one to ask; declined", sv.cfg.Name))
		return decline, nil
	}
	schema, err := json.Marshal(req.Params.RequestedSchema)
	if err != nil || string(schema) == "null" {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	qctx, cancel := context.WithCancel(callCtx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	res, err := sv.opts.Elicit(qctx, ElicitRequest{Server: sv.cfg.Name, Message: req.Params.Message, Schema: schema})
	if err != nil {
		if qctx.Err() != nil {
			return &mcp.ElicitResult{Action: ActionCancel}, nil
		}
		sv.log.Warn(fmt.Sprintf("MCP server %s: its question was not answered: %v; declined", sv.cfg.Name, err))
		return decline, nil
	}
	switch res.Action {
	case ActionAccept:
		return &mcp.ElicitResult{Action: ActionAccept, Content: res.Content}, nil
	case ActionCancel:
		return &mcp.ElicitResult{Action: ActionCancel}, nil
	}
	return decline, nil
}
