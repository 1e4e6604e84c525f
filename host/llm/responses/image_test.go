package responses

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/llm"
)

// TestInputImages: a user message's images follow its text as input_image
// parts with data URLs; a message without images stays a plain string.
func TestInputImages(t *testing.T) {
	in := input([]llm.Message{
		{Role: llm.RoleUser, Text: "what is this?", Images: []llm.Image{{MimeType: "image/png", Data: []byte("\x89PNG")}}},
		{Role: llm.RoleUser, Text: "plain"},
	}, "gpt-test")
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"type":"input_text"`, `"text":"what is this?"`, `"image_url":"data:image/png;base64,iVBORw=="`, `"type":"input_image"`, `"content":"plain"`} {
		if !strings.Contains(s, want) {
			t.Errorf("input = %s, want %s in it", s, want)
		}
	}
}

// TestToolOutputImages: a tool result with images is a
// function_call_output whose output is a list: its text as input_text,
// then each image as input_image; one without stays a string.
func TestToolOutputImages(t *testing.T) {
	in := input([]llm.Message{
		{Role: llm.RoleTool, ToolCallID: "c1", Text: "[image: image/png, 4 bytes]", Images: []llm.Image{{MimeType: "image/png", Data: []byte("\x89PNG")}}},
		{Role: llm.RoleTool, ToolCallID: "c2", Text: "plain"},
	}, "gpt-test")
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(b, &items); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(items[0]["output"])
	want := `[{"text":"[image: image/png, 4 bytes]","type":"input_text"},{"detail":"auto","image_url":"data:image/png;base64,iVBORw==","type":"input_image"}]`
	if items[0]["type"] != "function_call_output" || items[0]["call_id"] != "c1" || string(out) != want {
		t.Errorf("item 0 = %s, want a function_call_output of c1 with output %s", b, want)
	}
	if items[1]["output"] != "plain" {
		t.Errorf("item 1 output = %v, want the string", items[1]["output"])
	}
}
