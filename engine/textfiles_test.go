package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
)

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
	r, err := New(Config{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	s, err := r.CreateSession(cwd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.CloseSession(s) })
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
	unset := r.editors.set(s.ID(), ed)
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
	unset()
	if tf := read(); tf.Source != pluginapi.SourceDisk {
		t.Errorf("after the turn, read = %+v", tf)
	}
}
