package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/llm"
)

// TestMessagesImages: a user message's images follow its text as base64
// image blocks.
func TestMessagesImages(t *testing.T) {
	ms := messages([]llm.Message{{Role: llm.RoleUser, Text: "what is this?", Images: []llm.Image{{MimeType: "image/png", Data: []byte("\x89PNG")}}}}, DefaultModel)
	b, err := json.Marshal(ms)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"source":{"data":"iVBORw==","media_type":"image/png","type":"base64"},"type":"image"}`
	if !strings.Contains(string(b), want) || strings.Index(string(b), "what is this?") > strings.Index(string(b), want) {
		t.Errorf("messages = %s, want the text then %s", b, want)
	}
}

// TestToolResultImages: a tool result's images go inside its tool_result
// block, after its text.
func TestToolResultImages(t *testing.T) {
	ms := messages([]llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "shot", Arguments: "{}"}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Text: "[image: image/png, 4 bytes]", Images: []llm.Image{{MimeType: "image/png", Data: []byte("\x89PNG")}}},
	}, DefaultModel)
	if len(ms) != 2 {
		t.Fatalf("%d messages, want the assistant's and the user's", len(ms))
	}
	b, err := json.Marshal(ms[1])
	if err != nil {
		t.Fatal(err)
	}
	want := `"content":[{"text":"[image: image/png, 4 bytes]","type":"text"},{"source":{"data":"iVBORw==","media_type":"image/png","type":"base64"},"type":"image"}]`
	if !strings.Contains(string(b), want) || !strings.Contains(string(b), `"type":"tool_result"`) {
		t.Errorf("tool result = %s, want %s inside the tool_result", b, want)
	}
}
