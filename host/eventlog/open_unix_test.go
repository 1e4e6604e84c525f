//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package eventlog

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
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

// TestUntrusted: a log another user could have written — its mode flipped
// to 0666 or 0620, or owned by another uid (as root) — is refused by every
// way in with one line naming the file, owner and mode, and without its
// contents; the file is left as it was (no lock, no repair, no chmod).
func TestUntrusted(t *testing.T) {
	t.Parallel()
	other := 65534
	if os.Geteuid() == other {
		other = 65533
	}
	for _, tc := range []struct {
		name  string
		place func(t *testing.T, path string)
		want  string
	}{
		{"mode 0666", func(t *testing.T, path string) { chmod(t, path, 0o666) }, "writable by group or others (mode 0666"},
		{"mode 0620", func(t *testing.T, path string) { chmod(t, path, 0o620) }, "writable by group or others (mode 0620"},
		{"another uid", func(t *testing.T, path string) {
			if os.Geteuid() != 0 {
				t.Skip("chown to another uid needs root; TestCheck in host/ownership covers the decision")
			}
			if err := os.Chown(path, other, other); err != nil {
				t.Fatal(err)
			}
		}, "is owned by "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path, _ := newLog(t, 2)
			tc.place(t, path)
			before, _ := os.ReadFile(path)
			fi0, _ := os.Stat(path)
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
				err := f()
				if err == nil {
					t.Errorf("%s: opened an untrusted log", op)
					continue
				}
				msg := err.Error()
				if !strings.Contains(msg, "session log "+path+" ") || !strings.Contains(msg, tc.want) || !strings.Contains(msg, "refused: ") ||
					strings.Contains(msg, "\n") || strings.Contains(msg, "line 1") {
					t.Errorf("%s: %q, want one line naming %s and %q", op, msg, path, tc.want)
				}
			}
			after, _ := os.ReadFile(path)
			fi1, _ := os.Stat(path)
			if !bytes.Equal(before, after) || fi0.Mode() != fi1.Mode() {
				t.Errorf("the refused log changed: mode %v → %v", fi0.Mode(), fi1.Mode())
			}
		})
	}
}

// TestCreateUmask: Create makes the log 0600 and its missing folders 0700
// under umask 000 (in a child process: the umask is the process's).
func TestCreateUmask(t *testing.T) {
	if dir := os.Getenv("EVENTLOG_TEST_UMASK_DIR"); dir != "" {
		syscall.Umask(0)
		l, err := Create(filepath.Join(dir, "state", "sessions", "abc.jsonl"), testHeader("abc"))
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		return
	}
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCreateUmask$")
	cmd.Env = append(os.Environ(), "EVENTLOG_TEST_UMASK_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for p, want := range map[string]fs.FileMode{"state": 0o700, "state/sessions": 0o700, "state/sessions/abc.jsonl": 0o600} {
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %04o under umask 000, want %04o", p, fi.Mode().Perm(), want)
		}
	}
}

func chmod(t *testing.T, path string, m fs.FileMode) {
	t.Helper()
	if err := os.Chmod(path, m); err != nil {
		t.Fatal(err)
	}
}
