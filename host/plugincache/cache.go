package plugincache

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

	"github.com/harness-dev/harness/host/atomicfile"
	"github.com/harness-dev/harness/host/pluginlock"
)

// Cache is one content-addressed plugin cache dir. Its methods are safe
// for concurrent use. book and index may be nil (tests): entries are then
// trusted by name and size, and every file is hashed.
type Cache struct {
	dir   string
	book  *cacheBook
	index *hashIndex
}

// Open creates dir (0700) and loads its book and hash index.
func Open(dir string) (*Cache, error) {
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	return &Cache{dir: dir, book: loadCacheBook(dir), index: loadHashIndex(dir)}, nil
}

// Put brings the plugin file at src into the cache and returns its
// sha256 and the entry's path.
//
// The digest comes from the index when it knows the file in its present
// state, otherwise from reading the file. An entry already in the cache
// is reused when it is a regular file of the right size that the book
// vouches for; otherwise the file is staged, hashed and placed, and the
// copy must hash to the digest of the file. It fails when the file
// changed while it was read.
func (c *Cache) Put(src string) (sum, dst string, err error) {
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
func (c *Cache) putCopy(f *os.File, want string) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	st, err := c.copy(f, fi.Size())
	if err != nil {
		return "", err
	}
	if err := st.Hash(); err != nil {
		return "", err
	}
	if st.sum != want {
		st.Drop()
		return "", ErrChanging
	}
	return st.Place()
}

// present reports whether the entry dir/<sum> is there with the right
// size and vouched for by the book (a failing entry is removed, for the
// caller to write again), and returns its path.
func (c *Cache) present(sum string, size int64) (string, bool) {
	dst := filepath.Join(c.dir, sum)
	return dst, cached(dst, size) && c.book.valid(sum)
}

// Verify checks the entry dir/<sum> before it runs and notes its use (see
// cacheBook.check), and returns its path.
func (c *Cache) Verify(sum string) (string, error) {
	if c.book == nil {
		return filepath.Join(c.dir, sum), nil
	}
	return c.book.check(sum)
}

// SaveIndex writes the hash index, if it changed.
func (c *Cache) SaveIndex() error {
	if c.index == nil {
		return nil
	}
	return c.index.save()
}

// Save merges the book into its file.
func (c *Cache) Save() error {
	if c.book == nil {
		return nil
	}
	return c.book.save()
}

// Prune removes the entries not in keep and unused for grace, and stale
// temporary files (see cacheBook.prune).
func (c *Cache) Prune(keep map[string]bool, grace time.Duration, log hclog.Logger) (n int, bytes int64) {
	if c.book == nil {
		return 0, 0
	}
	return c.book.prune(keep, grace, log)
}

// ErrChanging says that a file changed while it was read: a writer is
// still at work, and a reload tries again once the file is quiet.
var ErrChanging = errors.New("the file changed while it was copied")

// Staged is a plugin file copied into the cache dir under a temporary
// name and hashed, not yet in place: the bytes hashed are the bytes that
// will run.
type Staged struct {
	c    *Cache
	tmp  string // the copy, until Place or Drop
	sum  string // its sha256, once hashed
	size int64
}

// Stage copies the open file f into a temporary file of the cache dir
// (in the kernel, with copy_file_range where it can); Hash then names it.
// It fails with ErrChanging when f's size or times moved meanwhile.
func (c *Cache) Stage(f *os.File) (*Staged, error) {
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
		err = ErrChanging
	}
	if err != nil {
		st.Drop()
		return nil, err
	}
	return st, nil
}

// copy writes size bytes of r to a temporary file of the cache dir.
func (c *Cache) copy(r io.Reader, size int64) (*Staged, error) {
	tmp, err := writeTemp(filepath.Join(c.dir, "reload"), r, size)
	if err != nil {
		return nil, err
	}
	return &Staged{c: c, tmp: tmp, size: size}, nil
}

// Hash sets s.sum from the copy's bytes, the bytes that will run.
func (s *Staged) Hash() error {
	sum, err := pluginlock.HashFile(s.tmp)
	if err != nil {
		s.Drop()
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

// Place puts the staged copy into the cache as dir/<sum> (0500), records
// its identity in the book and returns its path; a copy already there is
// kept and the staged one dropped.
func (s *Staged) Place() (string, error) {
	dst, ok := s.c.present(s.sum, s.size)
	if ok {
		s.Drop()
		return dst, nil
	}
	if err := os.Chmod(s.tmp, 0o500); err != nil {
		s.Drop()
		return "", err
	}
	if err := atomicfile.Rename(s.tmp, dst); err != nil {
		s.Drop()
		return "", err
	}
	s.c.book.note(s.sum)
	return dst, nil
}

// Drop removes the staged copy.
func (s *Staged) Drop() { os.Remove(s.tmp) }

// Path is the staged copy's file, until Place or Drop.
func (s *Staged) Path() string { return s.tmp }

// Sum is the copy's sha256, once hashed.
func (s *Staged) Sum() string { return s.sum }

// cached reports whether the cache entry path exists with the right size.
func cached(path string, size int64) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() == size
}

// writeTemp writes size bytes of r to a temporary file next to dst and
// returns its name; a short read fails with ErrChanging. Its name is one
// of atomicfile's (atomicfile.IsTemp), so that prune sweeps it if a crash
// leaves it; Place puts it in place with atomicfile.Rename once its name,
// its hash, is known.
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
		err = fmt.Errorf("read %d bytes, want %d: %w", n, size, ErrChanging)
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
