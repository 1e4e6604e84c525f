package acpbridge

import (
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/event"
)

// TestToolResultImages: a tool result's images reach the editor as image
// content after its text, read from the session's blobs, the same live
// and on replay; one whose blob is gone, or a session that keeps none,
// shows a line naming it.
func TestToolResultImages(t *testing.T) {
	t.Parallel()
	const hash = "0000000000000000000000000000000000000000000000000000000000000001"
	r := event.ToolResult{CallID: "c1", Content: "[image: image/png, 4 bytes]", Images: []event.Content{
		{Type: event.ContentImage, MimeType: "image/png", Blob: hash, URI: "test://picture"},
		{Type: event.ContentImage, MimeType: "image/gif", Blob: "1" + hash[1:]},
	}}
	blobs := func(h string) ([]byte, error) {
		if h == hash {
			return []byte("\x89PNG"), nil
		}
		return nil, fs.ErrNotExist
	}
	head := `{"content":[{"content":{"text":"[image: image/png, 4 bytes]","type":"text"},"type":"content"},`
	for _, tc := range []struct {
		name   string
		replay bool
		blob   func(string) ([]byte, error)
		want   string
	}{
		{"live", false, blobs, head +
			`{"content":{"data":"iVBORw==","mimeType":"image/png","type":"image","uri":"test://picture"},"type":"content"},` +
			`{"content":{"text":"[image: image/gif, not kept: file does not exist]","type":"text"},"type":"content"}],` +
			`"rawOutput":{"content":"[image: image/png, 4 bytes]"},"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c1"}`},
		{"replay", true, blobs, head +
			`{"content":{"data":"iVBORw==","mimeType":"image/png","type":"image","uri":"test://picture"},"type":"content"},` +
			`{"content":{"text":"[image: image/gif, not kept: file does not exist]","type":"text"},"type":"content"}],` +
			`"rawOutput":{"content":"[image: image/png, 4 bytes]"},"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c1"}`},
		{"no blobs", false, nil, head +
			`{"content":{"text":"[image: image/png, not kept: the session keeps no blobs]","type":"text"},"type":"content"},` +
			`{"content":{"text":"[image: image/gif, not kept: the session keeps no blobs]","type":"text"},"type":"content"}],` +
			`"rawOutput":{"content":"[image: image/png, 4 bytes]"},"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c1"}`},
	} {
		tr := translator{sessionID: "s", replay: tc.replay, blob: tc.blob}
		ups, err := tr.updates(ev(t, r))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{tc.want}, jsonOf(t, ups)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
