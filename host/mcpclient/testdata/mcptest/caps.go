package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rootsChanged counts the client's notifications/roots/list_changed.
var rootsChanged atomic.Int64

func noteRootsChanged(context.Context, *mcp.RootsListChangedRequest) { rootsChanged.Add(1) }

// addCaps adds what tests the client's capabilities: prompts, and tools
// that ask the client (elicitation, sampling, roots).
func addCaps(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{Name: "greet", Title: "Greet someone", Description: "Greets a person.",
		Arguments: []*mcp.PromptArgument{{Name: "name", Description: "who", Required: true}, {Name: "style", Description: "how"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Say hello to %s, style %q.", a["name"], a["style"])}},
				{Role: "user", Content: &mcp.ImageContent{Data: []byte("\x89PNG\r\n\x1a\nprompt"), MIMEType: "image/png"}},
			}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "recap", Description: "Recaps the session."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Recap what we did."}}}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_prompt", Description: "Adds the prompt late."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			s.AddPrompt(&mcp.Prompt{Name: "late", Description: "Added by add_prompt."},
				func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "late prompt"}}}}, nil
				})
			time.Sleep(100 * time.Millisecond) // prompts/list_changed goes out first
			return text("added"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Asks the user for a color."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			resp, more := input(req, &mcp.ElicitParams{Message: "Your favourite color?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","description":"a color"},"sure":{"type":"boolean"}},"required":["color"]}`)})
			if more != nil {
				return more, nil, nil
			}
			res := resp.(*mcp.ElicitResult)
			b, _ := json.Marshal(res.Content)
			return text(fmt.Sprintf("action %s content %s", res.Action, b)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "Asks the client's model."},
		func(ctx context.Context, req *mcp.CallToolRequest, in textArg) (*mcp.CallToolResult, any, error) {
			resp, more := input(req, &mcp.CreateMessageParams{MaxTokens: 100, SystemPrompt: "be brief",
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Text}}}})
			if more != nil {
				return more, nil, nil
			}
			var model, said string
			switch r := resp.(type) {
			case *mcp.CreateMessageResult:
				t, _ := r.Content.(*mcp.TextContent)
				model, said = r.Model, fmt.Sprint(t)
				if t != nil {
					said = t.Text
				}
			case *mcp.CreateMessageWithToolsResult:
				model = r.Model
				for _, c := range r.Content {
					if t, ok := c.(*mcp.TextContent); ok {
						said += t.Text
					}
				}
			default:
				return failed(fmt.Errorf("answer %T", resp)), nil, nil
			}
			return text(fmt.Sprintf("model %s said: %s", model, said)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Lists the client's roots."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			resp, more := input(req, &mcp.ListRootsParams{})
			if more != nil {
				return more, nil, nil
			}
			var uris []string
			for _, r := range resp.(*mcp.ListRootsResult).Roots {
				uris = append(uris, r.URI)
			}
			return text(fmt.Sprintf("roots (%d changes): %s", rootsChanged.Load(), strings.Join(uris, " "))), nil, nil
		})
}

// input asks the client for ir the way the SDK does it on every protocol
// version: a result that needs input (multi round-trip requests; the
// SDK's server sends an older client the request itself), then the
// answer on the call's retry.
func input(req *mcp.CallToolRequest, ir mcp.InputRequest) (mcp.InputResponse, *mcp.CallToolResult) {
	if resp, ok := req.Params.InputResponses["q"]; ok {
		return resp, nil
	}
	return nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": ir}, RequestState: "q"}
}
