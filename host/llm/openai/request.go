package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/harness-dev/harness/host/llm"
)

// chatRequest is the body of a streamed Chat Completions request.
type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Tools         []chatTool    `json:"tools,omitempty"`
	Stream        bool          `json:"stream"`
	StreamOptions streamOptions `json:"stream_options"`
	MaxTokens     int           `json:"max_tokens,omitempty"`
	// ReasoningEffort is sent only when asked for (low, medium, high, …).
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one message. Content is a *string (nil: an assistant
// message that only calls tools sends null), or the []contentPart of a user
// message with images.
type chatMessage struct {
	Role             string         `json:"role"`
	Content          any            `json:"content"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
}

// contentPart is one part of a user message with images: text, or an
// image as a data URL (Chat Completions' image_url part).
type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatToolSpec `json:"function"`
}

type chatToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema stands in for a tool without parameters; servers refuse a
// missing or null schema.
const emptySchema = `{"type":"object","properties":{}}`

// encodeRequest returns the JSON body for req, sent to model.
func encodeRequest(model string, req llm.Request) ([]byte, error) {
	body := chatRequest{
		Model:         model,
		Messages:      make([]chatMessage, 0, len(req.Messages)+1),
		Stream:        true,
		StreamOptions: streamOptions{IncludeUsage: true},
		MaxTokens:     max(req.MaxTokens, 0),

		ReasoningEffort: req.ReasoningEffort,
	}
	if req.System != "" {
		body.Messages = append(body.Messages, chatMessage{Role: "system", Content: &req.System})
	}
	var toolImages []contentPart // of the run of tool messages being encoded
	for i, m := range req.Messages {
		if m.Role != llm.RoleTool && len(toolImages) > 0 {
			body.Messages = append(body.Messages, chatMessage{Role: "user", Content: toolImages})
			toolImages = nil
		}
		cm, err := encodeMessage(m)
		if err != nil {
			return nil, fmt.Errorf("encode message %d: %w", i, err)
		}
		body.Messages = append(body.Messages, cm)
		if m.Role == llm.RoleTool && len(m.Images) > 0 {
			toolImages = append(toolImages, resultImages(m)...)
		}
	}
	if len(toolImages) > 0 {
		body.Messages = append(body.Messages, chatMessage{Role: "user", Content: toolImages})
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(bytes.TrimSpace(params)) == 0 || bytes.Equal(bytes.TrimSpace(params), []byte("null")) {
			params = json.RawMessage(emptySchema)
		}
		body.Tools = append(body.Tools, chatTool{
			Type:     "function",
			Function: chatToolSpec{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// resultImages are the parts of the user message that carries the images
// of tool result m: a tool message holds text only, so a result's images
// follow its run of tool messages in a user message, each announced by
// the call it came from.
func resultImages(m llm.Message) []contentPart {
	parts := []contentPart{{Type: "text", Text: fmt.Sprintf("The images of the result of tool call %s:", m.ToolCallID)}}
	for _, img := range m.Images {
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: dataURL(img)}})
	}
	return parts
}

// dataURL is img as a data: URL.
func dataURL(img llm.Image) string {
	return "data:" + img.MimeType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

func encodeMessage(m llm.Message) (chatMessage, error) {
	text := m.Text
	switch m.Role {
	case llm.RoleUser:
		if len(m.Images) == 0 {
			return chatMessage{Role: "user", Content: &text}, nil
		}
		parts := make([]contentPart, 0, len(m.Images)+1)
		if text != "" {
			parts = append(parts, contentPart{Type: "text", Text: text})
		}
		for _, img := range m.Images {
			parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: dataURL(img)}})
		}
		return chatMessage{Role: "user", Content: parts}, nil
	case llm.RoleTool:
		// An error result goes as is: the loop already prefixed it.
		return chatMessage{Role: "tool", Content: &text, ToolCallID: m.ToolCallID}, nil
	case llm.RoleAssistant:
		cm := chatMessage{Role: "assistant", Content: &text, ReasoningContent: m.Reasoning}
		if text == "" && len(m.ToolCalls) > 0 {
			cm.Content = nil
		}
		for _, c := range m.ToolCalls {
			args := c.Arguments
			if args == "" {
				args = "{}" // servers that parse arguments refuse ""
			}
			cm.ToolCalls = append(cm.ToolCalls, chatToolCall{
				ID:       c.ID,
				Type:     "function",
				Function: chatFunction{Name: c.Name, Arguments: args},
			})
		}
		return cm, nil
	}
	return chatMessage{}, fmt.Errorf("unknown role %q", m.Role)
}
