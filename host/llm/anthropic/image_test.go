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
