//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// editorHost is a host whose session's editor holds buffers: ReadTextFile
// answers a buffer when there is one (else the disk), WriteTextFile
// records the write into the buffer and never touches the disk.
type editorHost struct {
	plugintest.FakeHost
	mu      sync.Mutex
	buffers map[string]string
	reads   []string
	writes  []string
}

func (h *editorHost) ReadTextFile(_ context.Context, req pluginapi.ReadTextFileRequest) (pluginapi.TextFile, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reads = append(h.reads, req.Path)
	if b, ok := h.buffers[req.Path]; ok {
		return pluginapi.TextFile{Content: b, Source: pluginapi.SourceEditor}, nil
	}
	data, err := os.ReadFile(req.Path)
	if err != nil {
		return pluginapi.TextFile{}, fmt.Errorf("read: %w", err)
	}
	return pluginapi.TextFile{Content: string(data), Source: pluginapi.SourceDisk}, nil
}

func (h *editorHost) WriteTextFile(_ context.Context, req pluginapi.WriteTextFileRequest) (pluginapi.TextFile, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.writes = append(h.writes, req.Path)
	h.buffers[req.Path] = req.Content
	return pluginapi.TextFile{Source: pluginapi.SourceEditor}, nil
}

func (h *editorHost) buffer(p string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buffers[p]
}

func serveEditor(t *testing.T) (fixture, *editorHost) {
	t.Helper()
	h := &editorHost{buffers: map[string]string{}}
	ask := &fakeAsker{answer: pluginapi.PermissionResponse{Allowed: true}}
	return fixture{c: plugintest.Start(t, newServer(diskFiles{}, ask).plugin(), plugintest.WithHost(h)), cwd: t.TempDir(), ask: ask}, h
}

// TestEditorBuffers: with a host that serves files from the editor, read
// shows the unsaved buffer, edit changes the buffer (read before write
// judged on the buffer) and the disk stays as it was.
func TestEditorBuffers(t *testing.T) {
	t.Parallel()
	f, h := serveEditor(t)
	p := f.file(t, "a.go", "package a\n\nvar x = 1\n")
	h.buffers[p] = "package a\n\nvar x = 2 // unsaved\n"

	edit := map[string]any{"file_path": "a.go", "old_string": "var x = 2", "new_string": "var x = 3"}
	wantContains(t, "edit before read", f.call(t, "edit", edit), true, "has not read it")
	res := f.call(t, "read", map[string]any{"file_path": "a.go"})
	wantContains(t, "read", res, false, "var x = 2 // unsaved")
	if strings.Contains(res.Content, "var x = 1") {
		t.Errorf("read shows the disk, not the buffer:\n%s", res.Content)
	}
	if want := (pluginapi.Meta{Title: "Read a.go (lines 1–3)", Locations: []pluginapi.Location{{Path: p, Line: 1}}}); !cmp.Equal(res.Meta, want) {
		t.Errorf("read meta = %+v, want %+v", res.Meta, want)
	}
	res = f.call(t, "edit", edit)
	wantContains(t, "edit", res, false, "Edited "+p+": 1 replacement, line 3.")
	if got, want := h.buffer(p), "package a\n\nvar x = 3 // unsaved\n"; got != want {
		t.Errorf("buffer after edit = %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(p); string(b) != "package a\n\nvar x = 1\n" {
		t.Errorf("disk changed: %q", b)
	}
	want := pluginapi.Meta{Title: "Edit a.go", Locations: []pluginapi.Location{{Path: p, Line: 3}},
		Diffs: []pluginapi.Diff{{Path: p, OldText: "package a\n\nvar x = 2 // unsaved\n", NewText: "package a\n\nvar x = 3 // unsaved\n"}}}
	if d := cmp.Diff(want, res.Meta); d != "" {
		t.Errorf("edit meta (-want +got):\n%s", d)
	}
	// The session wrote the buffer: it may edit again without reading.
	wantContains(t, "second edit", f.call(t, "edit", map[string]any{"file_path": "a.go", "old_string": "x = 3", "new_string": "x = 4"}), false, "Edited")
	// The user types in the buffer: the model must read again.
	h.mu.Lock()
	h.buffers[p] = "package a\n\nvar x = 5\n"
	h.mu.Unlock()
	wantContains(t, "edit after the user typed", f.call(t, "edit", map[string]any{"file_path": "a.go", "old_string": "x = 5", "new_string": "x = 6"}), true, "changed since this session last read it")

	// A new file goes through the editor too.
	res = f.call(t, "write", map[string]any{"file_path": "sub/new.txt", "content": "hi\n"})
	np := filepath.Join(f.cwd, "sub", "new.txt")
	wantContains(t, "write", res, false, "Created "+np)
	if _, err := os.Stat(np); !os.IsNotExist(err) {
		t.Errorf("the write reached the disk: %v", err)
	}
	if h.buffer(np) != "hi\n" {
		t.Errorf("buffer of the new file = %q", h.buffer(np))
	}
	if len(res.Meta.Diffs) != 1 || !res.Meta.Diffs[0].NewFile || res.Meta.Title != "Create sub/new.txt" {
		t.Errorf("write meta = %+v", res.Meta)
	}
}

// TestPreview: Preview says what an edit or a write would do, with the
// diff, and changes nothing; outside the project it names the file but
// reads nothing (the call asks first); a read previews its title.
func TestPreview(t *testing.T) {
	t.Parallel()
	f, h := serveEditor(t)
	p := f.file(t, "m.txt", "one\ntwo\nthree\n")
	preview := func(tool string, args map[string]any) pluginapi.Meta {
		t.Helper()
		m, err := f.c.Preview(t.Context(), pluginapi.CallRequest{Tool: tool, Args: plugintest.Args(t, args), Cwd: f.cwd, SessionID: "s1"})
		if err != nil {
			t.Fatalf("preview %s: %v", tool, err)
		}
		return m
	}
	got := preview("edit", map[string]any{"file_path": "m.txt", "old_string": "two", "new_string": "TWO"})
	want := pluginapi.Meta{Title: "Edit m.txt", Locations: []pluginapi.Location{{Path: p, Line: 2}},
		Diffs: []pluginapi.Diff{{Path: p, OldText: "one\ntwo\nthree\n", NewText: "one\nTWO\nthree\n"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("edit preview (-want +got):\n%s", d)
	}
	got = preview("write", map[string]any{"file_path": "n.txt", "content": "new\n"})
	np := filepath.Join(f.cwd, "n.txt")
	want = pluginapi.Meta{Title: "Create n.txt", Locations: []pluginapi.Location{{Path: np}},
		Diffs: []pluginapi.Diff{{Path: np, NewText: "new\n", NewFile: true}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("write preview (-want +got):\n%s", d)
	}
	// Not unique: the file, no diff.
	got = preview("edit", map[string]any{"file_path": "m.txt", "old_string": "t", "new_string": "T"})
	if len(got.Diffs) != 0 || got.Title != "Edit m.txt" {
		t.Errorf("ambiguous edit preview = %+v", got)
	}
	out := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(out, []byte("secret\n"), 0o644)
	h.mu.Lock()
	h.reads = nil
	h.mu.Unlock()
	got = preview("edit", map[string]any{"file_path": out, "old_string": "secret", "new_string": "x"})
	if len(got.Diffs) != 0 || len(got.Locations) != 1 || got.Locations[0].Path != out {
		t.Errorf("outside preview = %+v", got)
	}
	if len(h.reads) != 0 {
		t.Errorf("a preview outside the project read %v", h.reads)
	}
	got = preview("read", map[string]any{"file_path": "m.txt", "offset": 2, "limit": 10})
	if want := (pluginapi.Meta{Title: "Read m.txt (lines 2–11)", Locations: []pluginapi.Location{{Path: p, Line: 2}}}); !cmp.Equal(got, want) {
		t.Errorf("read preview = %+v", got)
	}
	if got := preview("grep", map[string]any{"pattern": "x"}); !got.IsZero() {
		t.Errorf("grep preview = %+v, want none", got)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\nthree\n" || len(h.writes) != 0 || len(f.ask.asked()) != 0 {
		t.Errorf("a preview changed something or asked: file %q, writes %v, asked %d", b, h.writes, len(f.ask.asked()))
	}
	if _, err := os.Stat(np); !os.IsNotExist(err) {
		t.Errorf("the write preview created the file")
	}
}

// TestDescribeKinds: the tools declare their ACP kinds.
func TestDescribeKinds(t *testing.T) {
	t.Parallel()
	d, err := serve(t).c.Describe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"read": "read", "write": "edit", "edit": "edit", "grep": "search", "glob": "search"}
	for _, tool := range d.Tools {
		if tool.Kind != want[tool.Name] {
			t.Errorf("tool %s: kind %q, want %q", tool.Name, tool.Kind, want[tool.Name])
		}
	}
}

// TestGitInfoExclude: grep and glob skip what the repository's
// .git/info/exclude ignores, as git does.
func TestGitInfoExclude(t *testing.T) {
	t.Parallel()
	f := serve(t)
	f.file(t, ".git/info/exclude", "# local\nnotes.txt\nscratch/\n")
	f.file(t, "notes.txt", "needle\n")
	f.file(t, "scratch/a.txt", "needle\n")
	f.file(t, "sub/notes.txt", "needle\n")
	kept := f.file(t, "src/keep.txt", "needle\n")
	for _, where := range []string{"", "src", "sub"} {
		args := map[string]any{"pattern": "needle", "output_mode": "files_with_matches"}
		if where != "" {
			args["path"] = where
		}
		res := f.call(t, "grep", args)
		for _, bad := range []string{"notes.txt", "scratch"} {
			if strings.Contains(res.Content, bad) {
				t.Errorf("grep in %q shows %s, which .git/info/exclude ignores:\n%s", where, bad, res.Content)
			}
		}
		if where == "" && !strings.Contains(res.Content, kept) {
			t.Errorf("grep lost %s:\n%s", kept, res.Content)
		}
	}
	res := f.call(t, "glob", map[string]any{"pattern": "**/*.txt"})
	if strings.Contains(res.Content, "notes.txt") || strings.Contains(res.Content, "scratch") || !strings.Contains(res.Content, kept) {
		t.Errorf("glob ignores .git/info/exclude:\n%s", res.Content)
	}
	if len(res.Meta.Locations) != 0 || res.Meta.Title != `Find "**/*.txt" in `+f.cwd {
		t.Errorf("glob meta = %+v", res.Meta)
	}
	grep := f.call(t, "grep", map[string]any{"pattern": "needle"})
	if want := []pluginapi.Location{{Path: kept, Line: 1}}; !cmp.Equal(grep.Meta.Locations, want) {
		t.Errorf("grep locations = %+v, want %+v", grep.Meta.Locations, want)
	}
}
