package plugincache

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSnapshot(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "plug")
	cache := filepath.Join(t.TempDir(), "state", "plugins", "cache")
	if err := os.WriteFile(src, []byte("#!/bin/sh\necho v1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ensureDir(cache); err != nil {
		t.Fatal(err)
	}
	sum, dst, err := (&Cache{dir: cache}).Put(src)
	if err != nil {
		t.Fatal(err)
	}
	const want = "667f61a069b75f1f57fc561623da00e013e144221e8ea54de2803da9dd8aa952" // sha256sum
	if sum != want || dst != filepath.Join(cache, sum) {
		t.Fatalf("snapshot = %q, %q", sum, dst)
	}
	checkMode(t, cache, os.ModeDir|0o700)
	checkMode(t, dst, 0o500)
	if b, _ := os.ReadFile(dst); string(b) != "#!/bin/sh\necho v1\n" {
		t.Fatalf("copy holds %q", b)
	}
	fi1, _ := os.Stat(dst)

	// Same bytes: the copy is reused, not rewritten.
	sum2, _, err := (&Cache{dir: cache}).Put(src)
	if err != nil || sum2 != sum {
		t.Fatalf("second snapshot = %q, %v", sum2, err)
	}
	fi2, _ := os.Stat(dst)
	if !os.SameFile(fi1, fi2) {
		t.Errorf("the cached copy was rewritten")
	}

	// A damaged entry of the wrong size is replaced.
	os.Chmod(dst, 0o600)
	os.WriteFile(dst, []byte("#!"), 0o600)
	if _, _, err := (&Cache{dir: cache}).Put(src); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "#!/bin/sh\necho v1\n" {
		t.Fatalf("damaged copy not replaced: %q", b)
	}

	// New bytes: a new entry; the old one stays for processes running it.
	if err := os.WriteFile(src, []byte("#!/bin/sh\necho v2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum3, dst3, err := (&Cache{dir: cache}).Put(src)
	if err != nil || sum3 == sum {
		t.Fatalf("snapshot after change = %q, %v", sum3, err)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 2 {
		t.Errorf("cache holds %d entries, want 2 (no temp files left)", len(entries))
	}
	if _, err := os.Stat(dst3); err != nil {
		t.Error(err)
	}
}

func TestSnapshotMissing(t *testing.T) {
	t.Parallel()
	_, _, err := (&Cache{dir: t.TempDir()}).Put(filepath.Join(t.TempDir(), "nope"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("snapshot of a missing file: %v", err)
	}
}

func TestWriteTempShortRead(t *testing.T) {
	t.Parallel()
	dst := filepath.Join(t.TempDir(), "x")
	_, err := writeTemp(dst, io.LimitReader(strings.NewReader("abcdef"), 3), 6)
	if err == nil || !strings.Contains(err.Error(), "changed while it was copied") {
		t.Fatalf("writeTemp: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dst))
	if len(entries) != 0 {
		t.Fatalf("left %d files behind", len(entries))
	}
}

func TestHashIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	src := filepath.Join(dir, "plug")
	if err := ensureDir(cache); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte("#!/bin/sh\necho v1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	const v1 = "667f61a069b75f1f57fc561623da00e013e144221e8ea54de2803da9dd8aa952"

	// A fresh file is hashed but not recorded (it changed just now).
	idx := loadHashIndex(cache)
	if sum, _, err := (&Cache{dir: cache, index: idx}).Put(src); err != nil || sum != v1 {
		t.Fatalf("snapshot = %q, %v", sum, err)
	}
	if err := idx.save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cache, "index.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("index saved with a racy entry: %v", err)
	}

	// With no racy window it is recorded, and saved.
	idx = loadHashIndex(cache)
	idx.racy = 0
	if _, _, err := (&Cache{dir: cache, index: idx}).Put(src); err != nil {
		t.Fatal(err)
	}
	if err := idx.save(); err != nil {
		t.Fatal(err)
	}
	idx = loadHashIndex(cache)
	if len(idx.old) != 1 || idx.old[src].SHA256 != v1 {
		t.Fatalf("loaded index = %+v", idx.old)
	}

	// A recorded entry answers without reading the file: prove it by
	// giving the entry a wrong hash whose cache copy exists.
	fake := strings.Repeat("0", 64)
	e := idx.old[src]
	e.SHA256 = fake
	idx.old[src] = e
	if err := os.WriteFile(filepath.Join(cache, fake), make([]byte, e.Key.Size), 0o500); err != nil {
		t.Fatal(err)
	}
	if sum, dst, err := (&Cache{dir: cache, index: idx}).Put(src); err != nil || sum != fake || dst != filepath.Join(cache, fake) {
		t.Fatalf("snapshot with a recorded entry = %q, %q, %v", sum, dst, err)
	}

	// Once the file changes, it is hashed again.
	if err := os.WriteFile(src, []byte("#!/bin/sh\necho v2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if sum, _, err := (&Cache{dir: cache, index: idx}).Put(src); err != nil || sum == fake || sum == v1 {
		t.Fatalf("snapshot after a change = %q, %v", sum, err)
	}

	// A damaged index is an empty one.
	if err := os.WriteFile(filepath.Join(cache, "index.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if idx := loadHashIndex(cache); len(idx.old) != 0 {
		t.Fatalf("damaged index loaded as %+v", idx.old)
	}
}

func TestStageCopy(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "plug")
	cache := t.TempDir()
	if err := os.WriteFile(src, []byte("#!/bin/sh\necho v1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stage := func() *Staged {
		t.Helper()
		f, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, err := (&Cache{dir: cache}).Stage(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Hash(); err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := stage()
	const want = "667f61a069b75f1f57fc561623da00e013e144221e8ea54de2803da9dd8aa952" // sha256sum
	if st.sum != want || st.size != 18 {
		t.Fatalf("staged %+v", st)
	}
	dst, err := st.Place()
	if err != nil || dst != filepath.Join(cache, want) {
		t.Fatalf("place = %q, %v", dst, err)
	}
	checkMode(t, dst, 0o500)
	fi1, _ := os.Stat(dst)
	// The same bytes again: the cached copy is kept, the new one dropped.
	if dst2, err := stage().Place(); err != nil || dst2 != dst {
		t.Fatalf("second place = %q, %v", dst2, err)
	}
	if fi2, _ := os.Stat(dst); !os.SameFile(fi1, fi2) {
		t.Errorf("the cached copy was replaced")
	}
	stage().Drop()
	if entries, _ := os.ReadDir(cache); len(entries) != 1 {
		t.Errorf("cache holds %d entries, want 1 (no temporary files left)", len(entries))
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (os.ModeDir | os.ModePerm); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}

// TestVerify checks the book before a start: an entry is accepted while
// its identity is the recorded one, hashed again once it moved, and
// removed when its bytes no longer match its name, even at the same size.
func TestVerify(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "plug")
	if err := os.WriteFile(src, []byte("#!/bin/sh\necho v1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	sum, dst, err := c.Put(src)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Verify(sum); err != nil || got != dst {
		t.Fatalf("Verify of a fresh entry = %q, %v", got, err)
	}
	// Same bytes, new identity (rewritten in place): hashed again, kept.
	if err := os.Chmod(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte("#!/bin/sh\necho v1\n"), 0o500); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Verify(sum); err != nil {
		t.Fatalf("Verify of a rewritten, same-bytes entry: %v", err)
	}
	// Tampered at the same size: refused and removed.
	if err := os.WriteFile(dst, []byte("#!/bin/sh\necho v2\n"), 0o500); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Verify(sum); !errors.Is(err, errTampered) {
		t.Fatalf("Verify of a tampered entry: %v, want errTampered", err)
	}
	if _, err := os.Lstat(dst); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("tampered entry not removed: %v", err)
	}
	// Put copies it again.
	if _, _, err := c.Put(src); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Verify(sum); err != nil {
		t.Fatalf("Verify after Put again: %v", err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
}
