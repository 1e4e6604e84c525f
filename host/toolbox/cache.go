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
func snapshot(src, dir string, idx *hashIndex) (sum, dst string, err error) {
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
			if dst := filepath.Join(dir, sum); cached(dst, fi.Size()) {
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
	if !cached(dst, fi.Size()) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return "", "", err
		}
		if err := writeExecutable(dst, f, fi.Size()); err != nil {
			return "", "", fmt.Errorf("copy to the plugin cache: %w", err)
		}
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
		err = fmt.Errorf("read %d bytes, want %d: the file changed while it was copied", n, size)
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
