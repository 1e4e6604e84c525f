package openai

import (
	"encoding/json"
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
