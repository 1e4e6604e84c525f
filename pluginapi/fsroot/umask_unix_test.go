//go:build unix

package fsroot_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/harness-dev/harness/pluginapi/fsroot"
)

// TestWriteFileUmask: a new file gets perm less the umask, as os.WriteFile
// gives it (a user whose umask is 077 gets no file others may read); a
// replaced file keeps its mode. Not parallel: the umask is the process's.
func TestWriteFileUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	must(t, os.WriteFile(filepath.Join(dir, "old.txt"), []byte("old\n"), 0o644))
	must(t, os.Chmod(filepath.Join(dir, "old.txt"), 0o644))
	for _, tc := range []struct {
		name string
		want os.FileMode
	}{{"new.txt", 0o600}, {"d/new.txt", 0o600}, {"old.txt", 0o644}} {
		must(t, fsroot.WriteFile(r, tc.name, []byte("x\n"), 0o644))
		fi, err := os.Stat(filepath.Join(dir, tc.name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != tc.want {
			t.Errorf("%s: mode %04o under umask 077, want %04o", tc.name, fi.Mode().Perm(), tc.want)
		}
	}
}
