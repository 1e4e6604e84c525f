package session

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
)

// TestFork: a fork holds the parent's history up to the fork point, says
// so in its header, and the turns of either never touch the other's log.
func TestFork(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	parent := create(t, st, "parent")
	img, err := parent.PutBlob([]byte("png bytes"))
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, parent, event.PermissionMode{Mode: "ask", By: event.ByHost})
	mustAppend(t, parent, simpleTurn(1, "one")...)
	cut := int64(parent.Len())
	mustAppend(t, parent, event.TurnStart{Turn: 2},
		event.UserMessage{Content: []event.Content{{Type: event.ContentText, Text: "look"}, {Type: event.ContentImage, MimeType: "image/png", Blob: img}}},
		event.TurnEnd{Turn: 2, Reason: event.ReasonCompleted})
	full := int64(parent.Len())
	mustAppend(t, parent, event.TurnStart{Turn: 3}) // open: the parent is mid-turn
	before, err := os.ReadFile(st.path("parent"))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		at      int64
		wantLen int64
		err     string
	}{
		{"after turn 1", cut, cut, ""},
		{"after turn 2, with its image", full, full, ""},
		{"inside turn 1", cut - 2, 0, "inside turn 1"},
		{"the end, inside turn 3", full + 1, 0, "inside turn 3"},
		{"0: all but the open turn", 0, full, ""},
		{"past the end", full + 5, 0, "it has"},
		{"a negative point", -1, 0, "negative"},
	}
	for _, tc := range tests {
		child, err := st.Fork("parent", tc.at)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: Fork = %v, want an error with %q", tc.name, err, tc.err)
			}
			if child != nil {
				child.Close()
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if child.Parent() != "parent" || child.ForkSeq() != tc.wantLen || child.Cwd() != parent.Cwd() || int64(child.Len()) != tc.wantLen {
			t.Errorf("%s: fork parent %q forkSeq %d cwd %q len %d", tc.name, child.Parent(), child.ForkSeq(), child.Cwd(), child.Len())
		}
		for i, ev := range child.Events() {
			if p := parent.Events()[i]; ev.Type != p.Type || !bytes.Equal(ev.Data, p.Data) {
				t.Errorf("%s: event %d = %s %s, want the parent's %s %s", tc.name, i, ev.Type, ev.Data, p.Type, p.Data)
			}
		}
		if b, err := child.Blob(img); tc.wantLen == full && (err != nil || string(b) != "png bytes") {
			t.Errorf("%s: the image's blob: %q, %v", tc.name, b, err)
		}
		mustAppend(t, child, simpleTurn(child.LastTurn()+1, "fork's own")...)
		if chain, err := st.Lineage(child.ID()); err != nil || !slices.Equal(chain, []string{child.ID()}) {
			t.Errorf("%s: lineage %v, %v: a fork is a root", tc.name, chain, err)
		}
		id := child.ID()
		if err := child.Close(); err != nil {
			t.Fatal(err)
		}
		re := open(t, st, id) // the header survives a reopen
		if re.Parent() != "parent" || re.ForkSeq() != tc.wantLen {
			t.Errorf("%s: reopened fork: parent %q forkSeq %d", tc.name, re.Parent(), re.ForkSeq())
		}
	}
	after, err := os.ReadFile(st.path("parent"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("forking changed the parent's log")
	}
	if _, err := st.Fork("nobody", 0); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("fork of an unknown session: %v", err)
	}
}
