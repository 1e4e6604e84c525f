//go:build unix

package atomicfile_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/harness-dev/harness/host/atomicfile"
)

// setUmask sets the process's umask for the test (tests using it are not
// parallel).
func setUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestWriteFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		umask int
		perm  fs.FileMode
		setup func(t *testing.T, dir, path string) // what is at path before
	}{
		{name: "new file", umask: 0o022, perm: 0o644},
		{name: "private mode under a permissive umask", umask: 0, perm: 0o600},
		{name: "mode wider than the umask allows", umask: 0o077, perm: 0o644},
		{name: "read-only executable (a cache entry)", umask: 0o022, perm: 0o500},
		{name: "replaces a file", umask: 0o022, perm: 0o600, setup: func(t *testing.T, dir, path string) {
			if err := os.WriteFile(path, []byte("old content, longer than the new"), 0o666); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "replaces a symlink, not what it points to", umask: 0o022, perm: 0o644, setup: func(t *testing.T, dir, path string) {
			victim := filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, path); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if b, err := os.ReadFile(victim); err != nil || string(b) != "keep me" {
					t.Errorf("the symlink's target: %q, %v; want it untouched", b, err)
				}
			})
		}},
		{name: "replaces a dangling symlink", umask: 0o022, perm: 0o644, setup: func(t *testing.T, dir, path string) {
			if err := os.Symlink(filepath.Join(dir, "nowhere"), path); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setUmask(t, tc.umask)
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			if tc.setup != nil {
				tc.setup(t, dir, path)
			}
			before := len(entries(t, dir))
			if tc.setup == nil {
				before++ // the new file
			}
			data := []byte(`{"new":true}` + "\n")
			if err := atomicfile.WriteFile(path, data, tc.perm); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != tc.perm {
				t.Errorf("mode %v, want a regular file %v", fi.Mode(), tc.perm)
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
				t.Errorf("content %q, %v; want %q", got, err, data)
			}
			if n := len(entries(t, dir)); n != before {
				t.Errorf("folder holds %v; want no temporary file left", entries(t, dir))
			}
		})
	}
}

func TestWriteNew(t *testing.T) {
	for _, tc := range []struct {
		name    string
		exists  bool
		wantErr error
	}{
		{name: "creates", exists: false},
		{name: "never replaces", exists: true, wantErr: fs.ErrExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "log.jsonl")
			if tc.exists {
				if err := os.WriteFile(path, []byte("first\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := atomicfile.WriteNew(path, []byte("second\n"), 0o600)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("WriteNew: %v, want %v", err, tc.wantErr)
			}
			want := "second\n"
			if tc.exists {
				want = "first\n"
				var pe *fs.PathError
				if !errors.As(err, &pe) || pe.Path != path {
					t.Errorf("error %v does not name %s", err, path)
				}
			}
			if got, _ := os.ReadFile(path); string(got) != want {
				t.Errorf("content %q, want %q", got, want)
			}
			if names := entries(t, dir); len(names) != 1 {
				t.Errorf("folder holds %v, want only the file", names)
			}
		})
	}
}

// TestWriterFails checks that a write that fails part-way, or is
// abandoned, leaves the target as it was and no temporary file.
func TestWriterFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(w *atomicfile.Writer) error
	}{
		{name: "reader fails mid-copy", write: func(w *atomicfile.Writer) error {
			_, err := io.Copy(w, io.MultiReader(bytes.NewReader([]byte("half of it")), iotest.ErrReader(errors.New("disk gone"))))
			return err
		}},
		{name: "aborted after writing", write: func(w *atomicfile.Writer) error {
			w.Write([]byte("all of it"))
			return errors.New("changed our mind")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "index.json")
			if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := atomicfile.Create(path, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			if !atomicfile.IsTemp(filepath.Base(w.Name())) || filepath.Dir(w.Name()) != dir {
				t.Errorf("temporary file %s: want a temporary name in %s", w.Name(), dir)
			}
			if err := tc.write(w); err == nil {
				t.Fatal("the write did not fail")
			}
			w.Abort()
			w.Abort() // twice is harmless
			if err := w.Commit(); err == nil {
				t.Error("Commit after Abort succeeded")
			}
			if got, _ := os.ReadFile(path); string(got) != "old" {
				t.Errorf("target %q, want it untouched", got)
			}
			if names := entries(t, dir); len(names) != 1 {
				t.Errorf("folder holds %v, want only the target", names)
			}
		})
	}
}

// TestCrashMidWrite kills a process in the middle of a write (SIGKILL,
// after part of the new content reached the temporary file): the target
// keeps its old content whole, and what is left is one file that IsTemp
// recognizes.
func TestCrashMidWrite(t *testing.T) {
	if path := os.Getenv("ATOMICFILE_CRASH"); path != "" {
		w, err := atomicfile.Create(path, 0o644)
		if err != nil {
			os.Exit(2)
		}
		w.Write([]byte("the first half of the new con"))
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "book.json")
	if err := os.WriteFile(path, []byte("old, whole"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashMidWrite$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_CRASH="+path)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the writer was not killed: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old, whole" {
		t.Errorf("target %q after the crash, want the old content", got)
	}
	var left []string
	for _, name := range entries(t, dir) {
		if name != "book.json" {
			left = append(left, name)
		}
	}
	if len(left) != 1 || !atomicfile.IsTemp(left[0]) {
		t.Errorf("left %v, want one temporary file IsTemp recognizes", left)
	}
}

func TestRename(t *testing.T) {
	for _, tc := range []struct {
		name     string
		otherDir bool
	}{
		{name: "same folder"},
		{name: "from another folder", otherDir: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, ".plugin.build")
			if tc.otherDir {
				src = filepath.Join(t.TempDir(), "plugin")
			}
			if err := os.WriteFile(src, []byte("binary"), 0o755); err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(dir, "plugin")
			if err := atomicfile.Rename(src, dst); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(dst); string(got) != "binary" {
				t.Errorf("target %q", got)
			}
			if _, err := os.Lstat(src); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("source still there: %v", err)
			}
			if err := atomicfile.Rename(src, dst); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Rename of a missing file: %v, want fs.ErrNotExist", err)
			}
		})
	}
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".book.json.123456.tmp": true,
		".x.tmp":                true,
		".tmp":                  false,
		"notes.tmp":             false,
		".book.json":            false,
		"0123abcd":              false,
	} {
		if got := atomicfile.IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestWriterStreams copies a file into a Writer (the kernel's copy path,
// through ReadFrom) and commits it once.
func TestWriterStreams(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<14) // 256 KiB
	if err := os.WriteFile(src, want, 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	path := filepath.Join(dir, "copy")
	w, err := atomicfile.Create(path, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(w, in); err != nil || n != int64(len(want)) {
		t.Fatalf("copy: %d, %v", n, err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("target exists before Commit: %v", err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
	w.Abort() // after Commit: nothing
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("copy differs (%d bytes, %v)", len(got), err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, %v; want 0640", fi.Mode().Perm(), err)
	}
	if names := entries(t, dir); len(names) != 2 {
		t.Errorf("folder holds %v, want src and copy", names)
	}
}
