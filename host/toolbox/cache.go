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
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/pluginlock"
)

// pluginCache is the content-addressed cache of plugin binaries, dir/<sha256>
// (0500 files in a 0700 dir), and the one pipeline that turns a plugin file
// into an entry: stage (copy into the dir under a temporary name), hash
// (the copy's bytes, the bytes that will run), place (rename to its sha256
// and record its identity in the book). Start-up (put) and reload (stage,
// then hash and place) both go through it, and every start verifies its
// entry against the book first (verify). index remembers the hashes of
// discovered files by identity, so that a start-up need not read them.
//
// book and index may be nil (unit tests): entries are then trusted by
// name and size, and every file is hashed.
type pluginCache struct {
	dir   string
	book  *cacheBook
	index *hashIndex
}

// openCache creates dir (0700) and loads its book and hash index.
func openCache(dir string) (*pluginCache, error) {
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	return &pluginCache{dir: dir, book: loadCacheBook(dir), index: loadHashIndex(dir)}, nil
}

// put brings the plugin file at src into the cache and returns its
// sha256 and the entry's path.
//
// The digest comes from the index when it knows the file in its present
// state, otherwise from reading the file. An entry already in the cache
// is reused when it is a regular file of the right size that the book
// vouches for; otherwise the file is staged, hashed and placed, and the
// copy must hash to the digest of the file. It fails when the file
// changed while it was read.
func (c *pluginCache) put(src string) (sum, dst string, err error) {
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
		if sum := c.index.lookup(src, key); sum != "" {
			if dst, ok := c.present(sum, fi.Size()); ok {
				return sum, dst, nil
			}
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", "", fmt.Errorf("hash: %w", err)
	}
	sum = hex.EncodeToString(h.Sum(nil))
	dst, ok := c.present(sum, fi.Size())
	if !ok {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return "", "", err
		}
		if dst, err = c.putCopy(f, sum); err != nil {
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
		c.index.record(src, key, sum)
	}
	return sum, dst, nil
}

// putCopy stages, hashes and places f, whose bytes hashed to want. The
// copy's digest is the check that f did not change meanwhile (not its
// change time, which a new hard link to the file moves).
func (c *pluginCache) putCopy(f *os.File, want string) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	st, err := c.copy(f, fi.Size())
	if err != nil {
		return "", err
	}
	if err := st.hash(); err != nil {
		return "", err
	}
	if st.sum != want {
		st.drop()
		return "", errChanging
	}
	return st.place()
}

// present reports whether the entry dir/<sum> is there with the right
// size and vouched for by the book (a failing entry is removed, for the
// caller to write again), and returns its path.
func (c *pluginCache) present(sum string, size int64) (string, bool) {
	dst := filepath.Join(c.dir, sum)
	return dst, cached(dst, size) && c.book.valid(sum)
}

// verify checks the entry dir/<sum> before it runs and notes its use (see
// cacheBook.check), and returns its path.
func (c *pluginCache) verify(sum string) (string, error) {
	if c.book == nil {
		return filepath.Join(c.dir, sum), nil
	}
	return c.book.check(sum)
}

// saveIndex writes the hash index, if it changed.
func (c *pluginCache) saveIndex() error {
	if c.index == nil {
		return nil
	}
	return c.index.save()
}

// save merges the book into its file.
func (c *pluginCache) save() error {
	if c.book == nil {
		return nil
	}
	return c.book.save()
}

// prune removes the entries not in keep and unused for grace, and stale
// temporary files (see cacheBook.prune).
func (c *pluginCache) prune(keep map[string]bool, grace time.Duration, log hclog.Logger) (n int, bytes int64) {
	if c.book == nil {
		return 0, 0
	}
	return c.book.prune(keep, grace, log)
}

// errChanging says that a file changed while it was read: a writer is
// still at work, and a reload tries again once the file is quiet.
var errChanging = errors.New("the file changed while it was copied")

// staged is a plugin file copied into the cache dir under a temporary
// name and hashed, not yet in place: the bytes hashed are the bytes that
// will run.
type staged struct {
	c    *pluginCache
	tmp  string // the copy, until place or drop
	sum  string // its sha256, once hashed
	size int64
}

// stage copies the open file f into a temporary file of the cache dir
// (in the kernel, with copy_file_range where it can); hash then names it.
// It fails with errChanging when f's size or times moved meanwhile.
func (c *pluginCache) stage(f *os.File) (*staged, error) {
	before, err := f.Stat()
	if err != nil {
		return nil, err
	}
	st, err := c.copy(f, before.Size())
	if err != nil {
		return nil, err
	}
	after, err := f.Stat()
	if err == nil && !sameVersion(before, after) {
		err = errChanging
	}
	if err != nil {
		st.drop()
		return nil, err
	}
	return st, nil
}

// copy writes size bytes of r to a temporary file of the cache dir.
func (c *pluginCache) copy(r io.Reader, size int64) (*staged, error) {
	tmp, err := writeTemp(filepath.Join(c.dir, "reload"), r, size)
	if err != nil {
		return nil, err
	}
	return &staged{c: c, tmp: tmp, size: size}, nil
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

// place puts the staged copy into the cache as dir/<sum> (0500), records
// its identity in the book and returns its path; a copy already there is
// kept and the staged one dropped.
func (s *staged) place() (string, error) {
	dst, ok := s.c.present(s.sum, s.size)
	if ok {
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
	s.c.book.note(s.sum)
	return dst, nil
}

// drop removes the staged copy.
func (s *staged) drop() { os.Remove(s.tmp) }

// cached reports whether the cache entry path exists with the right size.
func cached(path string, size int64) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() == size
}

// writeTemp writes size bytes of r to a temporary file next to dst and
// returns its name; a short read fails with errChanging.
//
// The write fd is open only while syscall.ForkLock is read-held: a fork in
// another goroutine while it is open would leak it into the child until its
// exec, and an exec of the entry in that window fails with ETXTBSY (Go
// issue 22315).
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
