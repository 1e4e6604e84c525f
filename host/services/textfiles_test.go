package services

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/pluginapi"
)

// testSessions are the open sessions of a test, by id.
type testSessions map[string]*session.Session

func (m testSessions) Session(id string) (*session.Session, bool) { s, ok := m[id]; return s, ok }

// testEditors are the editors of a test's running turns, by id.
type testEditors struct {
	mu sync.Mutex
	m  map[string]EditorFiles
}

func (e *testEditors) set(id string, ed EditorFiles) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ed == nil {
		delete(e.m, id)
		return
	}
	e.m[id] = ed
}

func (e *testEditors) Editor(id string) (EditorFiles, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ed, ok := e.m[id]
	return ed, ok
}

// newHost is the host services of one real session, in folder cwd, with
// no editor yet.
func newHost(t *testing.T, cwd string) (*Host, *session.Session, *testEditors) {
	t.Helper()
	store := &session.Store{Dir: filepath.Join(t.TempDir(), "sessions")}
	s, err := store.Create(session.CreateOptions{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	eds := &testEditors{m: map[string]EditorFiles{}}
	return &Host{Sessions: testSessions{s.ID(): s}, Editors: eds}, s, eds
}

// fakeEditor is an editor holding buffers, offering read and/or write.
type fakeEditor struct {
	read, write bool
	buffers     map[string]string
}

func (e *fakeEditor) EditorFiles() (bool, bool) { return e.read, e.write }

func (e *fakeEditor) ReadEditorFile(_ context.Context, path string) (string, error) {
	if b, ok := e.buffers[path]; ok {
		return b, nil
	}
	return "", errors.New("no buffer")
}

func (e *fakeEditor) WriteEditorFile(_ context.Context, path, content string) error {
	e.buffers[path] = content
	return nil
}

// TestTextFiles: the host's text files come from the session's editor
// when it offers them, from disk otherwise, per direction.
func TestTextFiles(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	r, s, eds := newHost(t, cwd)
	ctx := context.Background()
	p := filepath.Join(cwd, "a.txt")
	if err := os.WriteFile(p, []byte("disk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	read := func() pluginapi.TextFile {
		t.Helper()
		tf, err := r.ReadTextFile(ctx, pluginapi.ReadTextFileRequest{SessionID: s.ID(), Path: p})
		if err != nil {
			t.Fatal(err)
		}
		return tf
	}
	if tf := read(); tf != (pluginapi.TextFile{Content: "disk\n", Source: pluginapi.SourceDisk}) {
		t.Errorf("read without an editor = %+v", tf)
	}
	if _, err := r.ReadTextFile(ctx, pluginapi.ReadTextFileRequest{SessionID: s.ID(), Path: filepath.Join(cwd, "missing")}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := r.ReadTextFile(ctx, pluginapi.ReadTextFileRequest{SessionID: s.ID(), Path: "a.txt"}); err == nil {
		t.Error("a relative path was read")
	}
	if _, err := r.ReadTextFile(ctx, pluginapi.ReadTextFileRequest{SessionID: "nope", Path: p}); err == nil {
		t.Error("a file of an unknown session was read")
	}
	if _, err := r.WriteTextFile(ctx, pluginapi.WriteTextFileRequest{SessionID: s.ID(), Path: p, Content: "new\n"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the disk write lost the mode: %v %v", fi.Mode(), err)
	}

	ed := &fakeEditor{read: true, buffers: map[string]string{p: "buffer\n"}}
	eds.set(s.ID(), ed)
	if tf := read(); tf != (pluginapi.TextFile{Content: "buffer\n", Source: pluginapi.SourceEditor}) {
		t.Errorf("read with an editor = %+v", tf)
	}
	// The editor reads but does not write: writes go to disk.
	if tf, err := r.WriteTextFile(ctx, pluginapi.WriteTextFileRequest{SessionID: s.ID(), Path: p, Content: "two\n"}); err != nil || tf.Source != pluginapi.SourceDisk {
		t.Errorf("write = %+v, %v; want disk", tf, err)
	}
	ed.write = true
	if tf, err := r.WriteTextFile(ctx, pluginapi.WriteTextFileRequest{SessionID: s.ID(), Path: p, Content: "three\n"}); err != nil || tf.Source != pluginapi.SourceEditor {
		t.Errorf("write = %+v, %v; want editor", tf, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two\n" || ed.buffers[p] != "three\n" {
		t.Errorf("disk %q, buffer %q", b, ed.buffers[p])
	}
	eds.set(s.ID(), nil)
	if tf := read(); tf.Source != pluginapi.SourceDisk {
		t.Errorf("after the turn, read = %+v", tf)
	}
}

// TestTextFilesNotUTF8: where the host's text files would corrupt a file
// that is not UTF-8 (the plugin protocol carries UTF-8 strings only, the
// editor's fs/write_text_file JSON text), they refuse in one line saying
// so, and the file keeps its bytes.
func TestTextFilesNotUTF8(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	r, s, eds := newHost(t, cwd)
	latin1 := "caf\xe9 = 1\n"
	utf := filepath.Join(cwd, "utf8.txt")
	lat := filepath.Join(cwd, "latin1.txt")
	os.WriteFile(utf, []byte("café = 1\n"), 0o644)
	os.WriteFile(lat, []byte(latin1), 0o644)
	ed := &fakeEditor{buffers: map[string]string{utf: "café = 1\n", lat: "caf\uFFFD = 1\n"}}
	eds.set(s.ID(), ed)

	tests := []struct {
		name        string
		read, write bool   // what the editor offers
		path        string // the file
		content     *string
		want        string // in the error; "" for none
	}{
		{name: "disk read of a UTF-8 file", path: utf},
		{name: "disk read of a Latin-1 file", path: lat, want: "read " + lat + ": the file is not UTF-8 (byte 0xE9 at offset 3); the host's text files are UTF-8 strings"},
		{name: "editor read of a UTF-8 file", read: true, path: utf},
		{name: "editor read of a Latin-1 file", read: true, path: lat, want: "read " + lat + ": the file on disk is not UTF-8 (byte 0xE9 at offset 3); the editor's fs/read_text_file would hand over decoded text"},
		{name: "editor write of Latin-1 text", write: true, path: utf, content: ptr("caf\xe9 = 2\n"), want: "write " + utf + ": the new text is not UTF-8 (byte 0xE9 at offset 3); the editor's fs/write_text_file takes UTF-8 text and would store U+FFFD"},
		{name: "editor write over a Latin-1 file", write: true, path: lat, content: ptr("café = 2\n"), want: "write " + lat + ": the file on disk is not UTF-8 (byte 0xE9 at offset 3); the editor's fs/write_text_file would store its text over it"},
		{name: "editor read of a path that is not UTF-8", read: true, path: filepath.Join(cwd, "caf\xe9.txt"), want: `read "` + cwd + `/caf\xe9.txt": the path is not UTF-8`},
		{name: "editor write of a path that is not UTF-8", write: true, path: filepath.Join(cwd, "caf\xe9.txt"), content: ptr("x\n"), want: `write "` + cwd + `/caf\xe9.txt": the path is not UTF-8`},
		{name: "editor write of a new file", write: true, path: filepath.Join(cwd, "new.txt"), content: ptr("new\n")},
		{name: "disk write of Latin-1 text keeps its bytes", path: lat, content: ptr(latin1)},
	}
	for _, tc := range tests {
		// Not parallel: the cases share the session's editor.
		t.Run(tc.name, func(t *testing.T) {
			ed.read, ed.write = tc.read, tc.write
			var err error
			if tc.content == nil {
				_, err = r.ReadTextFile(t.Context(), pluginapi.ReadTextFileRequest{SessionID: s.ID(), Path: tc.path})
			} else {
				_, err = r.WriteTextFile(t.Context(), pluginapi.WriteTextFileRequest{SessionID: s.ID(), Path: tc.path, Content: *tc.content})
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("err %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err %v, want %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("the refusal is more than one line: %q", err)
			}
			if b, _ := os.ReadFile(lat); string(b) != latin1 {
				t.Errorf("the Latin-1 file is now %q", b)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestTextFilesNoSymlink: without an editor the host opens a text file
// where its path says, following no symlink: a symlink on the way (to a
// file or a folder, inside the cwd or out of it) fails the request in one
// line and nothing is read or written through it; a resolved path inside
// the cwd, or outside it, works.
func TestTextFilesNoSymlink(t *testing.T) {
	t.Parallel()
	cwd, out := t.TempDir(), t.TempDir()
	r, s, _ := newHost(t, cwd)
	for p, c := range map[string]string{filepath.Join(cwd, "sub", "a.txt"): "in\n", filepath.Join(out, "secret"): "secret\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, dest := range map[string]string{filepath.Join(cwd, "key"): filepath.Join(out, "secret"), filepath.Join(cwd, "outdir"): out, filepath.Join(cwd, "in"): "sub/a.txt"} {
		if err := os.Symlink(dest, link); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	tests := []struct {
		path string
		ok   bool
	}{
		{filepath.Join(cwd, "sub", "a.txt"), true},
		{filepath.Join(out, "secret"), true},
		{filepath.Join(cwd, "key"), false},
		{filepath.Join(cwd, "outdir", "secret"), false},
		{filepath.Join(cwd, "in"), false},
	}
	for _, tc := range tests {
		_, rerr := r.ReadTextFile(ctx, pluginapi.ReadTextFileRequest{SessionID: s.ID(), Path: tc.path})
		werr := func() error {
			_, err := r.WriteTextFile(ctx, pluginapi.WriteTextFileRequest{SessionID: s.ID(), Path: tc.path, Content: "new\n"})
			return err
		}()
		for op, err := range map[string]error{"read": rerr, "write": werr} {
			switch {
			case tc.ok && err != nil:
				t.Errorf("%s %s: %v", op, tc.path, err)
			case !tc.ok && err == nil:
				t.Errorf("%s %s went through a symlink", op, tc.path)
			case !tc.ok && (!strings.Contains(err.Error(), "follow no symlink") || strings.Contains(err.Error(), "\n")):
				t.Errorf("%s %s: %v, want one line saying it follows no symlink", op, tc.path, err)
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "secret")); string(b) != "new\n" {
		t.Errorf("the resolved outside path was not written: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(cwd, "key")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink key was replaced: %v", err)
	}
}
