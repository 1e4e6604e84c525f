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
