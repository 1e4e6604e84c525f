package toolbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/harness-dev/harness/host/pluginlock"
)

// snapshot copies the plugin binary at src into the content-addressed cache
// dir as <dir>/<sha256> and returns the hex digest and the copy's path.
//
// The digest comes from idx when it knows the file in its present state
// (see hashIndex), otherwise from reading the file. A copy already in the
// cache is reused when it is a regular file of the right size: entries
// reach the cache only by a rename after their bytes were hashed, and the
// dir is 0700, so the name is the content. A copy is written to a
// temporary file that is renamed into place, so a reader never sees half a
// binary. idx may be nil.
func snapshot(src, dir string, idx *hashIndex, book *cacheBook) (sum, dst string, err error) {
	f, err := os.Open(src)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", "", err
	}
	key, keyed := keyOf(fi)
	if keyed {
		if sum := idx.lookup(src, key); sum != "" {
			if dst := filepath.Join(dir, sum); cached(dst, fi.Size()) && book.valid(sum) {
				return sum, dst, nil
			}
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", "", fmt.Errorf("hash: %w", err)
	}
	sum = hex.EncodeToString(h.Sum(nil))
	dst = filepath.Join(dir, sum)
	if !cached(dst, fi.Size()) || !book.valid(sum) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return "", "", err
		}
		if err := writeExecutable(dst, f, fi.Size()); err != nil {
			return "", "", fmt.Errorf("copy to the plugin cache: %w", err)
		}
		book.note(sum)
	}
	after, err := f.Stat()
	if err != nil {
		return "", "", err
	}
	if after.Size() != fi.Size() || !after.ModTime().Equal(fi.ModTime()) {
		return "", "", errors.New("the file changed while it was read")
	}
	if keyed {
		idx.record(src, key, sum)
	}
	return sum, dst, nil
}

// errChanging says that a file changed while it was read: a writer is
// still at work, and a reload tries again once the file is quiet.
var errChanging = errors.New("the file changed while it was copied")

// staged is a plugin file copied into the cache dir under a temporary
// name and hashed, not yet in place: the bytes hashed are the bytes that
// will run.
type staged struct {
	tmp  string // the copy, until place or drop
	sum  string // its sha256, once hashed
	size int64
}

// stageCopy copies the open file f into a temporary file of the cache dir
// (in the kernel, with copy_file_range where it can); hash then names it.
// It fails with errChanging when f's size or times moved meanwhile.
func stageCopy(f *os.File, dir string) (*staged, error) {
	before, err := f.Stat()
	if err != nil {
		return nil, err
	}
	tmp, err := writeTemp(filepath.Join(dir, "reload"), f, before.Size())
	if err != nil {
		return nil, err
	}
	after, err := f.Stat()
	if err == nil && !sameVersion(before, after) {
		err = errChanging
	}
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	return &staged{tmp: tmp, size: before.Size()}, nil
}

// hash sets s.sum from the copy's bytes, the bytes that will run.
func (s *staged) hash() error {
	sum, err := pluginlock.HashFile(s.tmp)
	if err != nil {
		s.drop()
		return err
	}
	s.sum = sum
	return nil
}

// sameVersion reports whether two stats of one open file show the same
// content: same size, modification and (where known) change times.
func sameVersion(a, b os.FileInfo) bool {
	ka, okA := keyOf(a)
	kb, okB := keyOf(b)
	if okA && okB {
		return ka == kb
	}
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// place puts the staged copy into the cache as dir/<sum> (0500) and
// returns that path; a copy already there is kept and the staged one
// dropped.
func (s *staged) place(dir string, book *cacheBook) (string, error) {
	dst := filepath.Join(dir, s.sum)
	if cached(dst, s.size) && book.valid(s.sum) {
		s.drop()
		return dst, nil
	}
	if err := os.Chmod(s.tmp, 0o500); err != nil {
		s.drop()
		return "", err
	}
	if err := os.Rename(s.tmp, dst); err != nil {
		s.drop()
		return "", err
	}
	book.note(s.sum)
	return dst, nil
}

// drop removes the staged copy.
func (s *staged) drop() { os.Remove(s.tmp) }

// cached reports whether the cache entry path exists with the right size.
func cached(path string, size int64) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() == size
}

// writeExecutable writes size bytes of r to a temporary file next to dst,
// makes it 0500 and renames it to dst.
//
// The write fd is open only while syscall.ForkLock is read-held: a fork in
// another goroutine while it is open would leak it into the child until its
// exec, and an exec of dst in that window fails with ETXTBSY (Go issue
// 22315).
func writeExecutable(dst string, r io.Reader, size int64) (err error) {
	tmp, err := writeTemp(dst, r, size)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o500); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

func writeTemp(dst string, r io.Reader, size int64) (string, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.tmp")
	if err != nil {
		return "", err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != size {
		err = fmt.Errorf("read %d bytes, want %d: %w", n, size, errChanging)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// ensureDir creates dir (and its parents) and makes dir itself 0700.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &fs.PathError{Op: "mkdir", Path: dir, Err: syscall.ENOTDIR}
	}
	if fi.Mode().Perm() != 0o700 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}
