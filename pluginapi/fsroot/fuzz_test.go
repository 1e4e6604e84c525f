//go:build unix

package fsroot_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/pluginapi/fsroot"
)

// FuzzOpen: whatever name it is given, Open (and Lstat, and WriteFile)
// never reaches beneath the root a file outside it, through "..", an
// absolute name or a symlink.
func FuzzOpen(f *testing.F) {
	for _, s := range []string{"a.txt", "sub/b.txt", "../out/secret", "out", "subln/b.txt", "/etc/passwd", "sub/../../out/secret", ".", "", "sub//b.txt", "outdir/secret"} {
		f.Add(s)
	}
	dir, out := f.TempDir(), f.TempDir()
	must := func(err error) {
		if err != nil {
			f.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("b\n"), 0o644))
	must(os.WriteFile(filepath.Join(out, "secret"), []byte("SECRET\n"), 0o644))
	must(os.Symlink(filepath.Join(out, "secret"), filepath.Join(dir, "out")))
	must(os.Symlink(out, filepath.Join(dir, "outdir")))
	must(os.Symlink("sub", filepath.Join(dir, "subln")))
	r, err := os.OpenRoot(dir)
	must(err)
	f.Fuzz(func(t *testing.T, name string) {
		if fh, _, err := fsroot.Open(r, name, nil); err == nil {
			b, _ := io.ReadAll(io.LimitReader(fh, 1<<10))
			fh.Close()
			if strings.Contains(string(b), "SECRET") {
				t.Fatalf("Open(%q) read the outside file", name)
			}
		}
		if strings.Contains(name, "harness-") {
			return
		}
		_ = fsroot.WriteFile(r, name, []byte("w\n"), 0o644)
		if b, _ := os.ReadFile(filepath.Join(out, "secret")); string(b) != "SECRET\n" {
			t.Fatalf("WriteFile(%q) wrote the outside file", name)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 1 {
			t.Fatalf("WriteFile(%q) created a file outside", name)
		}
	})
}
