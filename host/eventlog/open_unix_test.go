//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package eventlog

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNotRegular: a log path holding a symbolic link (even to a good log),
// a FIFO or a directory is refused by every way in, at once and with an
// error naming the file; nothing is written through the link.
func TestNotRegular(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		place func(t *testing.T, path string)
		what  string
	}{
		{"symlink to a good log", func(t *testing.T, path string) {
			target, _ := newLog(t, 2)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"dangling symlink", func(t *testing.T, path string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere.jsonl"), path); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err) // a prerequisite, not the feature
			}
		}, "FIFO"},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "sessions")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "abc.jsonl")
			tc.place(t, path)
			var linked []byte
			if target, err := os.Readlink(path); err == nil {
				linked, _ = os.ReadFile(target)
			}
			ops := map[string]func() error{
				"Open": func() error {
					l, err := Open(path, nil)
					if err == nil {
						l.Close()
					}
					return err
				},
				"Read":       func() error { _, _, err := Read(path, nil); return err },
				"ReadHeader": func() error { _, err := ReadHeader(path); return err },
			}
			for op, f := range ops {
				done := make(chan error, 1)
				go func() { done <- f() }()
				select {
				case err := <-done:
					if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.what) {
						t.Errorf("%s: err = %v, want ErrNotRegular naming %s as a %s", op, err, path, tc.what)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("%s hangs on a %s", op, tc.name)
				}
			}
			// Create refuses the taken name rather than writing through it.
			if l, err := Create(path, testHeader("abc")); err == nil {
				l.Close()
				t.Error("Create succeeded over a non-regular file")
			} else if !errors.Is(err, fs.ErrExist) {
				t.Errorf("Create: err = %v, want ErrExist", err)
			}
			if target, err := os.Readlink(path); err == nil {
				after, _ := os.ReadFile(target)
				if !bytes.Equal(after, linked) {
					t.Errorf("the link's target changed:\n%q\nwas\n%q", after, linked)
				}
			}
		})
	}
}
