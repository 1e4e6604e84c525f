package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPrivateFoldersUmask: the folders the plugin makes for itself — its
// private folder, a command's temp folder, a spill folder and its parents —
// are 0700 under umask 0277, which would leave them 0500 (a folder its
// owner, unless root, cannot write in: every command then failed with
// "make the command's temp folder: permission denied"). The umask is the
// process's, and this package's tests run in parallel, so the check runs
// in a copy of the test binary.
func TestPrivateFoldersUmask(t *testing.T) {
	if dir := os.Getenv("BASH_UMASK_TEST_DIR"); dir != "" {
		syscall.Umask(0o277)
		private := filepath.Join(dir, "private")
		if err := ensurePrivate(private); err != nil {
			t.Fatal(err)
		}
		c := &sandboxConfig{temps: map[string]string{}}
		tmp, err := c.tempDir("s1", private)
		if err != nil {
			t.Fatal(err)
		}
		spill := filepath.Join(dir, "a", "b", "spill")
		if err := mkdirPrivate(spill); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{private, tmp, filepath.Join(dir, "a"), filepath.Join(dir, "a", "b"), spill} {
			fi, err := os.Stat(d)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != 0o700 {
				t.Errorf("%s: mode %#o under umask 0277, want 0700", d, got)
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPrivateFoldersUmask$", "-test.v")
	cmd.Env = append(os.Environ(), "BASH_UMASK_TEST_DIR="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
