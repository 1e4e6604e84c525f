package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/harness-dev/harness/host/llm"
)

// params builds the Messages request for req; see the package doc for how
// history, thinking and cache breakpoints are laid out.
func (p *Provider) params(model string, req llm.Request) (sdk.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.maxTokens
	}
	prm := sdk.MessageNewParams{Model: sdk.Model(model), MaxTokens: int64(maxTokens)}
	switch {
	case p.thinking > 0:
		if maxTokens <= p.thinking {
			prm.MaxTokens = int64(p.thinking + min(maxTokens, 16384))
		}
		prm.Thinking = sdk.ThinkingConfigParamUnion{OfEnabled: &sdk.ThinkingConfigEnabledParam{BudgetTokens: int64(p.thinking)}}
	case p.thinking < 0:
		prm.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{}}
	}
	if req.System != "" {
		prm.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	for i, t := range req.Tools {
		schema, err := inputSchema(t.Parameters)
		if err != nil {
			return prm, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tp := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		if i == len(req.Tools)-1 {
			tp.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		prm.Tools = append(prm.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	prm.Messages = messages(req.Messages, model)
	markCache(prm.Messages)
	return prm, nil
}

// inputSchema turns a tool's JSON Schema into the SDK's input schema.
func inputSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	var s sdk.ToolInputSchemaParam
	if len(raw) == 0 {
		s.Properties = map[string]any{}
		return s, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, fmt.Errorf("parameters are not a JSON object: %w", err)
	}
	s.Properties = m["properties"]
	if s.Properties == nil {
		s.Properties = map[string]any{}
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	for k, v := range m {
		switch k {
		case "type", "properties", "required":
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	return s, nil
}

// messages lays out the history: user-side messages (user text, tool
// results) that follow each other become one user message with the tool
// results first; an assistant message becomes its signed blocks, text and
// tool_use blocks.
func messages(ms []llm.Message, model string) []sdk.MessageParam {
	var out []sdk.MessageParam
	var user []sdk.ContentBlockParamUnion // the user message being gathered
	var text []sdk.ContentBlockParamUnion // its text blocks, after the results
	flush := func() {
		if len(user)+len(text) > 0 {
			out = append(out, sdk.NewUserMessage(append(user, text...)...))
		}
		user, text = nil, nil
	}
	for _, m := range ms {
		switch m.Role {
		case llm.RoleTool:
			if len(text) > 0 { // a result after user text starts a new message
				flush()
			}
			content := m.Text
			if content == "" {
				content = "(no output)"
			}
			r := &sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID,
				Content: []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: content}}}}
			for _, img := range m.Images { // the result's images, inside the tool_result
				r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfImage: sdk.NewImageBlockBase64(img.MimeType, base64.StdEncoding.EncodeToString(img.Data)).OfImage})
			}
			if m.IsError {
				r.IsError = sdk.Bool(true)
			}
			user = append(user, sdk.ContentBlockParamUnion{OfToolResult: r})
		case llm.RoleAssistant:
			flush()
			if blocks := assistant(m, model); len(blocks) > 0 {
				out = append(out, sdk.NewAssistantMessage(blocks...))
			}
		default:
			if m.Text != "" {
				text = append(text, sdk.NewTextBlock(m.Text))
			}
			for _, img := range m.Images { // base64 image blocks after the text
				text = append(text, sdk.NewImageBlockBase64(img.MimeType, base64.StdEncoding.EncodeToString(img.Data)))
			}
		}
	}
	flush()
	return out
}

// assistant returns the blocks of an assistant message; thinking goes back
// only to the model that made it.
func assistant(m llm.Message, model string) []sdk.ContentBlockParamUnion {
	var bs []sdk.ContentBlockParamUnion
	for _, b := range m.Blocks {
		if b.Provider != Name || b.Model != "" && b.Model != model {
			continue
		}
		switch b.Type {
		case "thinking":
			bs = append(bs, sdk.NewThinkingBlock(b.Signature, b.Text))
		case "redacted_thinking":
			bs = append(bs, sdk.NewRedactedThinkingBlock(b.Data))
		}
	}
	if m.Text != "" {
		bs = append(bs, sdk.NewTextBlock(m.Text))
	}
	for _, c := range m.ToolCalls {
		args := json.RawMessage(c.Arguments)
		if !json.Valid(args) {
			args = json.RawMessage(`{}`)
		}
		bs = append(bs, sdk.NewToolUseBlock(c.ID, args, c.Name))
	}
	return bs
}

// markCache puts cache breakpoints on the last block of the last message
// and of the last user message before the latest assistant message.
func markCache(ms []sdk.MessageParam) {
	mark := func(m sdk.MessageParam) {
		if m.OfUser == nil || len(m.OfUser.Content) == 0 {
			return
		}
		if cc := m.OfUser.Content[len(m.OfUser.Content)-1].GetCacheControl(); cc != nil {
			*cc = sdk.NewCacheControlEphemeralParam()
		}
	}
	if len(ms) == 0 {
		return
	}
	mark(ms[len(ms)-1])
	seenAssistant := false
	for i := len(ms) - 2; i >= 0; i-- {
		if ms[i].OfAssistant != nil {
			seenAssistant = true
			continue
		}
		if seenAssistant && ms[i].OfUser != nil {
			mark(ms[i])
			return
		}
	}
}
