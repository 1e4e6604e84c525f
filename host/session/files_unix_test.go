//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/eventlog"
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
