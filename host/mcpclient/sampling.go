package mcpclient

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SampleRequest is a server's sampling/createMessage, text only: the
// messages (role "user" or "assistant") to send the session's model, with
// the server's system prompt and token cap.
type SampleRequest struct {
	// Server names the server that asks.
	Server    string
	System    string
	Messages  []SampleMessage
	MaxTokens int
}

// SampleMessage is one message of a SampleRequest.
type SampleMessage struct{ Role, Text string }

// SampleResult is the model's answer and the model's name.
type SampleResult struct{ Text, Model string }

// sample serves the server's sampling/createMessage through
// Options.Sample, with the context of the call in flight (WithCall),
// when the server's entry allows it (ServerConfig.Sampling); otherwise,
// and for anything but text, it is refused with a line saying why.
func (sv *server) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if !sv.cfg.Sampling {
		where := "its mcp.json entry (a server the editor gives cannot allow it)"
		if strings.ContainsRune(sv.cfg.Source, filepath.Separator) {
			where = "its entry of " + sv.cfg.Source
		}
		err := fmt.Errorf("MCP server %s asked to sample the model; sampling is off for it: set `\"sampling\": true` in %s to allow it, asked each time", sv.cfg.Name, where)
		sv.log.Warn(err.Error())
		return nil, err
	}
	callCtx, ok := sv.callContext(ctx)
	if !ok || sv.opts.Sample == nil {
		return nil, fmt.Errorf("MCP server %s asked to sample the model outside a tool call, or where no one can allow it; refused", sv.cfg.Name)
	}
	sr := SampleRequest{Server: sv.cfg.Name, System: req.Params.SystemPrompt, MaxTokens: int(req.Params.MaxTokens)}
	for _, m := range req.Params.Messages {
		t, ok := m.Content.(*mcp.TextContent)
		if !ok {
			return nil, fmt.Errorf("MCP server %s asked to sample the model with %T content; harness samples text only", sv.cfg.Name, m.Content)
		}
		sr.Messages = append(sr.Messages, SampleMessage{Role: string(m.Role), Text: t.Text})
	}
	qctx, cancel := context.WithCancel(callCtx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	res, err := sv.opts.Sample(qctx, sr)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: sampling: %w", sv.cfg.Name, err)
	}
	return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: res.Text}, Model: res.Model, StopReason: "endTurn"}, nil
}
