package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/tool"
)

// TestEmittedProposed: only an Emitted made by Checked, with its fields as
// Checked set them, carries a checked event; one built by hand or changed
// afterwards is checked again by the session.
func TestEmittedProposed(t *testing.T) {
	t.Parallel()
	p, err := event.Propose("demo/note", json.RawMessage(`{"text":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	retyped := tool.Checked(p)
	retyped.Type = "demo/other"
	edited := tool.Checked(p)
	edited.Data = json.RawMessage(`{"text":"changed"}`)
	for _, tc := range []struct {
		name string
		e    tool.Emitted
		want bool
	}{
		{"checked", tool.Checked(p), true},
		{"built by hand", tool.Emitted{Type: p.Type(), Data: p.Data()}, false},
		{"type changed after the check", retyped, false},
		{"data changed after the check", edited, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.e.Proposed()
			if ok != tc.want {
				t.Fatalf("Proposed() ok = %v, want %v", ok, tc.want)
			}
			if ok && (got.Type() != p.Type() || string(got.Data()) != string(p.Data())) {
				t.Errorf("Proposed() = %s %s, want %s %s", got.Type(), got.Data(), p.Type(), p.Data())
			}
		})
	}
}
