//go:build unix

package fsroot_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/pluginapi/fsroot"
)

// tree makes a root folder with a file, a folder, a symlink to a file
// inside, one to a folder inside and one to a file outside; it returns
// the root opened and its path.
func tree(t *testing.T) (*os.Root, string, string) {
	t.Helper()
	dir, out := t.TempDir(), t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o640))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("b\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(out, "secret"), []byte("secret\n"), 0o644))
	must(t, os.Symlink("a.txt", filepath.Join(dir, "ln")))
	must(t, os.Symlink("sub", filepath.Join(dir, "subln")))
	must(t, os.Symlink(filepath.Join(out, "secret"), filepath.Join(dir, "out")))
	r, err := os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { r.Close() })
	return r, dir, out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	r, dir, _ := tree(t)
	other, err := os.Stat(filepath.Join(dir, "sub", "b.txt"))
	must(t, err)
	tests := []struct {
		name string
		want fs.FileInfo
		text string
		err  error
	}{
		{name: "a.txt", text: "a\n"},
		{name: "sub/b.txt", text: "b\n"},
		{name: "sub/b.txt", want: other, text: "b\n"},
		{name: "a.txt", want: other, err: fsroot.ErrChanged},
		{name: "ln", err: fsroot.ErrSymlink},
		{name: "out", err: fsroot.ErrSymlink},
		{name: "subln/b.txt", err: fsroot.ErrSymlink},
		{name: "a.txt/x", err: errors.New("not a directory")},
		{name: "missing", err: fs.ErrNotExist},
		{name: "../x", err: errors.New("climbs out")},
		{name: "/etc/passwd", err: errors.New("not a clean relative path")},
	}
	for _, tc := range tests {
		f, _, err := fsroot.Open(r, tc.name, tc.want)
		switch {
		case tc.err == nil && err != nil:
			t.Errorf("Open(%s) = %v", tc.name, err)
		case tc.err == nil:
			b, _ := io.ReadAll(f)
			f.Close()
			if string(b) != tc.text {
				t.Errorf("Open(%s) read %q, want %q", tc.name, b, tc.text)
			}
		case err == nil:
			f.Close()
			t.Errorf("Open(%s) succeeded, want %v", tc.name, tc.err)
		case !errors.Is(err, tc.err) && !strings.Contains(err.Error(), tc.err.Error()):
			t.Errorf("Open(%s) = %v, want %v", tc.name, err, tc.err)
		}
	}
	d, err := fsroot.Dir(r, "sub")
	must(t, err)
	defer d.Close()
	if _, err := d.Stat("b.txt"); err != nil {
		t.Errorf("Dir(sub) does not hold b.txt: %v", err)
	}
	if _, err := fsroot.Dir(r, "subln"); !errors.Is(err, fsroot.ErrSymlink) {
		t.Errorf("Dir(subln) = %v, want ErrSymlink", err)
	}
	abs, name, err := fsroot.Abs(filepath.Join(dir, "sub", "b.txt"))
	must(t, err)
	defer abs.Close()
	if f, _, err := fsroot.Open(abs, name, nil); err != nil {
		t.Errorf("Open(Abs) = %v", err)
	} else {
		f.Close()
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	r, dir, out := tree(t)
	must(t, fsroot.WriteFile(r, "a.txt", []byte("new\n"), 0o600))
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "new\n" {
		t.Errorf("a.txt = %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a.txt")); fi.Mode().Perm() != 0o640 {
		t.Errorf("a.txt mode = %v, want its old 0640", fi.Mode().Perm())
	}
	must(t, fsroot.WriteFile(r, "x/y/z.txt", []byte("z\n"), 0o644))
	if b, _ := os.ReadFile(filepath.Join(dir, "x", "y", "z.txt")); string(b) != "z\n" {
		t.Errorf("x/y/z.txt = %q", b)
	}
	for name, want := range map[string]error{"out": fsroot.ErrSymlink, "subln/n.txt": fsroot.ErrSymlink, "sub": fsroot.ErrNotRegular, ".": fsroot.ErrNotRegular} {
		if err := fsroot.WriteFile(r, name, []byte("no\n"), 0o644); !errors.Is(err, want) {
			t.Errorf("WriteFile(%s) = %v, want %v", name, err, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "secret")); string(b) != "secret\n" {
		t.Errorf("the outside file was written: %q", b)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	for _, e := range entries {
		if e.Name() != "b.txt" && e.Name() != "deep" {
			t.Errorf("left behind in sub: %s", e.Name())
		}
	}
}
