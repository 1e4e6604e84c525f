package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/llm"
)

func TestEncodeImages(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake")
	body, err := encodeRequest("vision", llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "what is this?", Images: []llm.Image{{MimeType: "image/png", Data: png}}},
		{Role: llm.RoleUser, Text: "plain"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgpmYWtl"}}]`
	if string(got.Messages[0].Content) != want {
		t.Errorf("user message with an image:\n got %s\nwant %s", got.Messages[0].Content, want)
	}
	if string(got.Messages[1].Content) != `"plain"` {
		t.Errorf("a text-only user message stays a string: %s", got.Messages[1].Content)
	}
}

// TestEncodeToolResultImages: a tool message holds text only, so the
// images of a run of tool results follow it in one user message, each
// result's announced by its call id; a result without images adds none.
func TestEncodeToolResultImages(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake")
	body, err := encodeRequest("vision", llm.Request{Messages: []llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "shot"}, {ID: "c2", Name: "echo"}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Text: "[image: image/png, 12 bytes]", Images: []llm.Image{{MimeType: "image/png", Data: png}}},
		{Role: llm.RoleTool, ToolCallID: "c2", Text: "plain"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c3", Name: "echo"}}},
		{Role: llm.RoleTool, ToolCallID: "c3", Text: "plain"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range got.Messages {
		roles = append(roles, m.Role)
	}
	if want := "assistant tool tool user assistant tool"; strings.Join(roles, " ") != want {
		t.Fatalf("roles %v, want %s", roles, want)
	}
	want := `[{"type":"text","text":"The images of the result of tool call c1:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgpmYWtl"}}]`
	if string(got.Messages[3].Content) != want {
		t.Errorf("the images' user message:\n got %s\nwant %s", got.Messages[3].Content, want)
	}
	if string(got.Messages[1].Content) != `"[image: image/png, 12 bytes]"` {
		t.Errorf("the tool message: %s, want its text", got.Messages[1].Content)
	}
}
