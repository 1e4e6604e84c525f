//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/ownership"
)

// TestStoreRefusesNonRegularFiles: a session file that is a symbolic link
// (here to a real session outside the store), a FIFO or a directory is
// refused by Open, Cwd and Lineage at once; nothing lands in the target.
func TestStoreRefusesNonRegularFiles(t *testing.T) {
	t.Parallel()
	const id = "victim"
	for name, place := range map[string]func(t *testing.T, path string){
		"symlink": func(t *testing.T, path string) {
			other := newStore(t)
			s := create(t, other, id)
			s.Close()
			if err := os.Symlink(other.path(id), path); err != nil {
				t.Fatal(err)
			}
		},
		"fifo": func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err) // a prerequisite
			}
		},
		"directory": func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := newStore(t)
			if err := os.MkdirAll(st.Dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := st.path(id)
			place(t, path)
			var before []byte
			target, _ := os.Readlink(path)
			if target != "" {
				before, _ = os.ReadFile(target)
			}
			for op, f := range map[string]func() error{
				"Open": func() error {
					s, err := st.Open(id)
					if err == nil {
						s.Close()
					}
					return err
				},
				"Cwd":     func() error { _, err := st.Cwd(id); return err },
				"Lineage": func() error { _, err := st.Lineage(id); return err },
			} {
				done := make(chan error, 1)
				go func() { done <- f() }()
				select {
				case err := <-done:
					if !errors.Is(err, eventlog.ErrNotRegular) {
						t.Errorf("%s: err = %v, want ErrNotRegular", op, err)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("%s hangs", op)
				}
			}
			if target != "" {
				if after, _ := os.ReadFile(target); !bytes.Equal(after, before) {
					t.Errorf("%s changed through the link", filepath.Base(target))
				}
			}
		})
	}
}

// TestStoreRefusesOpenFolder: a sessions folder others may write (0777,
// 0775, 1777) is refused by Create, Open, List, Cwd and Lineage with one
// line naming the folder and its mode, and is not chmodded; a log in it
// is neither read nor written.
func TestStoreRefusesOpenFolder(t *testing.T) {
	t.Parallel()
	for _, mode := range []os.FileMode{0o777, 0o775, 0o757, 0o777 | os.ModeSticky} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			st := newStore(t)
			s := create(t, st, "a")
			s.Close()
			before, _ := os.ReadFile(st.path("a"))
			if err := os.Chmod(st.Dir, mode); err != nil {
				t.Fatal(err)
			}
			for op, f := range map[string]func() error{
				"Create": func() error {
					s, err := st.Create(CreateOptions{ID: "b", Cwd: "/src"})
					if err == nil {
						s.Close()
					}
					return err
				},
				"Open": func() error {
					s, err := st.Open("a")
					if err == nil {
						s.Close()
					}
					return err
				},
				"List":    func() error { _, err := st.List(); return err },
				"Cwd":     func() error { _, err := st.Cwd("a"); return err },
				"Lineage": func() error { _, err := st.Lineage("a"); return err },
			} {
				err := f()
				if !errors.Is(err, ownership.ErrUntrusted) || !strings.Contains(err.Error(), "sessions folder "+st.Dir+" is writable by group or others (mode ") ||
					!strings.Contains(err.Error(), "chmod go-w "+st.Dir) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: %v, want a one-line refusal of the folder", op, err)
				}
			}
			fi, _ := os.Stat(st.Dir)
			if fi.Mode()&(os.ModePerm|os.ModeSticky) != mode {
				t.Errorf("the folder's mode changed from %v to %v", mode, fi.Mode())
			}
			if _, err := os.Stat(st.path("b")); err == nil {
				t.Error("Create wrote a log into the refused folder")
			}
			if after, _ := os.ReadFile(st.path("a")); !bytes.Equal(before, after) {
				t.Error("the log in the refused folder changed")
			}
		})
	}
}

// TestStoreRefusesForeignLog: a log flipped to 0666, or owned by another
// uid (as root), is refused by Open, and List gives its Summary the error.
func TestStoreRefusesForeignLog(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"0666", func(t *testing.T, path string) {
			if err := os.Chmod(path, 0o666); err != nil {
				t.Fatal(err)
			}
		}, "writable by group or others (mode 0666"},
		{"another uid", func(t *testing.T, path string) {
			if os.Geteuid() != 0 {
				t.Skip("chown to another uid needs root; host/ownership's TestCheck covers the decision")
			}
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "is owned by "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := newStore(t)
			for _, id := range []string{"good", "bad"} {
				s := create(t, st, id)
				mustAppend(t, s, simpleTurn(1, "hello "+id)...)
				s.Close()
			}
			tc.make(t, st.path("bad"))
			if _, err := st.Open("bad"); !errors.Is(err, ownership.ErrUntrusted) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open: %v, want %q", err, tc.want)
			}
			list, err := st.List()
			if err != nil {
				t.Fatal(err)
			}
			for _, sum := range list {
				switch bad := errors.Is(sum.Err, ownership.ErrUntrusted); {
				case sum.ID == "bad" && (!bad || sum.FirstPrompt != ""):
					t.Errorf("List: bad session listed as %+v", sum)
				case sum.ID == "good" && (sum.Err != nil || sum.FirstPrompt != "hello good"):
					t.Errorf("List: good session listed as %+v", sum)
				}
			}
		})
	}
}

// TestBlobRefusedWhenOthersCouldWrite: an image blob whose file another
// user could have rewritten is not read back into the model's history.
func TestBlobRefusedWhenOthersCouldWrite(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "a")
	defer s.Close()
	hash, err := s.PutBlob([]byte("image bytes"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(st.Dir, "a.blobs", hash)
	for p, want := range map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %04o", p, fi.Mode().Perm(), err, want)
		}
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Blob(hash); !errors.Is(err, ownership.ErrUntrusted) || b != nil || !strings.Contains(err.Error(), "session blob "+path+" is writable by group or others") {
		t.Errorf("Blob of a 0666 file = %q, %v; want a refusal naming it", b, err)
	}
}
