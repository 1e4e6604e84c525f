package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
)

// TestToolResultImages: a tool/result's images (hashes) are loaded from
// the blobs into the tool message of the model's history, live and after
// a reopen; a blob that is gone leaves the text alone; the fast decoder
// reads the field as event.Decode does; a tool/result written before the
// field (none) loads with none.
func TestToolResultImages(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "res")
	png := []byte("\x89PNG result bytes")
	hash, err := s.PutBlob(png)
	if err != nil {
		t.Fatal(err)
	}
	gone := "00000000000000000000000000000000000000000000000000000000000000aa"
	ps := simpleTurn(1, "look")
	r := ps[5].(event.ToolResult)
	r.Content = "shot\n" + llm.ImageNote("image/png", len(png))
	r.Images = []event.Content{{Type: event.ContentImage, MimeType: "image/png", Blob: hash, URI: "test://picture"},
		{Type: event.ContentImage, MimeType: "image/gif", Blob: gone}}
	ps[5] = r
	mustAppend(t, s, ps...)
	check := func(s *Session, when string) {
		t.Helper()
		var tm llm.Message
		for _, m := range s.Messages() {
			if m.Role == llm.RoleTool {
				tm = m
			}
		}
		want := llm.Message{Role: llm.RoleTool, ToolCallID: r.CallID, Text: r.Content, Images: []llm.Image{{MimeType: "image/png", Data: png}}}
		if d := cmp.Diff(want, tm); d != "" {
			t.Errorf("%s: the tool message (-want +got):\n%s", when, d)
		}
	}
	check(s, "live")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, st, "res")
	defer s.Close()
	check(s, "reopened")

	data, err := event.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	fast, ok := fastDecode(event.TypeToolResult, data)
	slow, err := event.Event{Type: event.TypeToolResult, Data: data}.Decode()
	if !ok || err != nil || !cmp.Equal(fast, slow) || !cmp.Equal(slow, event.Payload(r)) {
		t.Errorf("decode %s: fast %+v (%v), event.Decode %+v (%v)", data, fast, ok, slow, err)
	}
	old := []byte(`{"turn":1,"step":1,"callId":"c1","content":"x"}`)
	if p, err := (event.Event{Type: event.TypeToolResult, Data: old}).Decode(); err != nil || p.(event.ToolResult).Images != nil {
		t.Errorf("an old tool/result: %+v, %v", p, err)
	}
	if _, err := os.Stat(filepath.Join(st.Dir, "res.blobs", hash)); err != nil {
		t.Error(err)
	}
}
