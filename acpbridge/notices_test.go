package acpbridge

import (
	"encoding/json"
	"testing"
)

// TestNoteNotices: only an object at clientCapabilities.session.notices
// is the capability.
func TestNoteNotices(t *testing.T) {
	for params, want := range map[string]bool{
		`{"clientCapabilities":{"session":{"notices":{}}}}`:      true,
		`{"clientCapabilities":{"session":{"notices":{"x":1}}}}`: true,
		`{"clientCapabilities":{"session":{"notices":true}}}`:    false,
		`{"clientCapabilities":{"session":{}}}`:                  false,
		`{"clientCapabilities":{}}`:                              false,
		`not json`:                                               false,
	} {
		b := &bridge{}
		b.noteNotices(json.RawMessage(params))
		if got := b.notices.Load(); got != want {
			t.Errorf("%s: notices %v, want %v", params, got, want)
		}
	}
}

func FuzzNoteNotices(f *testing.F) {
	f.Add([]byte(`{"clientCapabilities":{"session":{"notices":{}}}}`))
	f.Add([]byte(`{"clientCapabilities":{"session":{"notices":null}}}`))
	f.Fuzz(func(t *testing.T, params []byte) {
		b := &bridge{}
		b.noteNotices(params)
		var p struct {
			ClientCapabilities struct {
				Session struct {
					Notices map[string]any `json:"notices"`
				} `json:"session"`
			} `json:"clientCapabilities"`
		}
		if b.notices.Load() && (json.Unmarshal(params, &p) != nil || p.ClientCapabilities.Session.Notices == nil) {
			t.Errorf("%q read as advertising notices", params)
		}
	})
}

// TestNoticeMessageID: each notice is a message of its own, with a
// version 4 UUID.
func TestNoticeMessageID(t *testing.T) {
	a, b := noticeMessageID(), noticeMessageID()
	if a == b || len(a) != 36 || a[14] != '4' {
		t.Errorf("message ids %q, %q", a, b)
	}
}
