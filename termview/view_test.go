package termview

import (
	"bytes"
	"context"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/host/event"
)

// logSource is a session whose events the test appends.
type logSource struct {
	mu  sync.Mutex
	evs []event.Event
}

func (s *logSource) Follow(ctx context.Context, _ int64) iter.Seq[event.Event] {
	return func(func(event.Event) bool) { <-ctx.Done() }
}

func (s *logSource) Events() []event.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]event.Event(nil), s.evs...)
}

func (s *logSource) add(t *testing.T, p event.Payload) {
	t.Helper()
	data, err := event.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evs = append(s.evs, event.Event{Seq: int64(len(s.evs)), Type: p.EventType(), Data: data})
}

// render shows a read and an edit through a view.
func render(t *testing.T, color bool) string {
	t.Helper()
	src := &logSource{}
	var out bytes.Buffer
	v := New(&out, src, color)
	stop := v.Follow()
	src.add(t, event.ToolCall{Turn: 1, Step: 1, CallID: "r", Name: "read", Args: `{"file_path":"README.md"}`, Kind: "read", Title: "Read README.md"})
	src.add(t, event.ToolResult{Turn: 1, Step: 1, CallID: "r", Content: "/p/README.md, lines 1–2 of 2:\n     1\ta\n     2\tb\n", Title: "Read README.md (lines 1–2)"})
	src.add(t, event.ToolCall{Turn: 1, Step: 1, CallID: "e", Name: "edit", Args: `{}`, Kind: "edit", Title: "Edit main.go",
		Diffs: []event.Diff{{Path: "/p/main.go", OldText: "package main\n\nvar x = 1\n", NewText: "package main\n\nvar x = 2\n"}}})
	src.add(t, event.ToolResult{Turn: 1, Step: 1, CallID: "e", Content: "Edited /p/main.go: 1 replacement, line 3.\n..."})
	stop()
	return out.String()
}

func TestViewReadAndEdit(t *testing.T) {
	t.Parallel()
	plain := render(t, false)
	want := "→ Read README.md (lines 1–2) ✓\n" +
		"→ Edit main.go\n" +
		"    @@ -1,3 +1,3 @@\n" +
		"     package main\n" +
		"     \n" +
		"    -var x = 1\n" +
		"    +var x = 2\n" +
		"  ✓ Edited /p/main.go: 1 replacement, line 3. …\n"
	if plain != want {
		t.Errorf("plain view:\n%s\nwant:\n%s", plain, want)
	}
	if strings.Contains(plain, "\x1b[") {
		t.Error("the plain view has ANSI escapes")
	}
	colored := render(t, true)
	for _, s := range []string{"\x1b[31m-var x = 1\x1b[0m", "\x1b[32m+var x = 2\x1b[0m", "\x1b[36m@@ -1,3 +1,3 @@\x1b[0m"} {
		if !strings.Contains(colored, s) {
			t.Errorf("colored view lacks %q:\n%q", s, colored)
		}
	}
}

func TestViewDiffCapped(t *testing.T) {
	t.Parallel()
	var old, nw strings.Builder
	for i := range 200 {
		old.WriteString("line\n")
		nw.WriteString("changed " + string(rune('a'+i%26)) + "\n")
	}
	v := &View{}
	out := v.diff(event.Diff{Path: "/p/f", OldText: old.String(), NewText: nw.String()})
	if n := strings.Count(out, "\n"); n != maxDiffLines+1 || !strings.Contains(out, "more lines") {
		t.Errorf("diff of 400 changed lines shows %d lines:\n%s", n, out)
	}
}
