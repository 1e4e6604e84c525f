package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes data to path with mode perm (see the package doc).
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	w, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// WriteNew writes data to path with mode perm, as WriteFile does, but
// only if path does not exist: it fails with an error matching
// fs.ErrExist (an *fs.PathError naming path) otherwise. On any error
// path does not exist afterwards (unless it existed).
func WriteNew(path string, data []byte, perm fs.FileMode) error {
	w, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	return w.commit(link, true)
}

// Writer is a file being written to replace path: Write (or io.Copy into
// it), then Commit, or Abort. It is not safe for concurrent use.
type Writer struct {
	f    *os.File
	path string
	perm fs.FileMode
	done bool // committed or aborted
}

// Create starts the write of path with mode perm: a temporary file in
// path's folder, which Commit puts in place.
func Create(path string, perm fs.FileMode) (*Writer, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*"+tempSuffix)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f, path: path, perm: perm}, nil
}

// Write writes p to the temporary file.
func (w *Writer) Write(p []byte) (int, error) { return w.f.Write(p) }

// ReadFrom copies r into the temporary file (in the kernel where it can:
// copy_file_range, splice).
func (w *Writer) ReadFrom(r io.Reader) (int64, error) { return w.f.ReadFrom(r) }

// Name is the temporary file's path, until Commit or Abort.
func (w *Writer) Name() string { return w.f.Name() }

// Commit fsyncs the temporary file, sets its mode, closes it, renames it
// to the target and fsyncs the folder. On an error the temporary file is
// removed and the target is as it was, unless the error is the folder's
// fsync (the rename is then done, and perhaps not durable).
func (w *Writer) Commit() error { return w.commit(os.Rename, false) }

// commit puts the temporary file in place with place; undo says to remove
// the new entry again if the folder's fsync fails (a new file can be
// taken back, a replaced one cannot).
func (w *Writer) commit(place func(tmp, path string) error, undo bool) error {
	if w.done {
		return errors.New("atomic write " + w.path + ": already committed or aborted")
	}
	w.done = true
	tmp := w.f.Name()
	err := w.f.Sync()
	if err == nil {
		err = w.f.Chmod(w.perm)
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = place(tmp, w.path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := syncDir(filepath.Dir(w.path)); err != nil {
		if undo {
			os.Remove(w.path)
		}
		return err
	}
	return nil
}

// Abort closes and removes the temporary file, leaving the target as it
// was. It does nothing after Commit or another Abort.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	os.Remove(w.f.Name())
}

// link puts tmp in place at path unless path exists, then removes tmp.
func link(tmp, path string) error {
	if err := os.Link(tmp, path); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = &fs.PathError{Op: "create", Path: path, Err: le.Err}
		}
		return err
	}
	os.Remove(tmp)
	return nil
}

// Rename puts the finished file oldpath in place at newpath: it fsyncs
// oldpath, renames it and fsyncs newpath's folder (and oldpath's, when
// another). The caller has written and closed oldpath and set its mode.
func Rename(oldpath, newpath string) error {
	f, err := os.Open(oldpath)
	if err != nil {
		return err
	}
	err = f.Sync()
	f.Close()
	if err != nil {
		return err
	}
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	if d := filepath.Dir(oldpath); d != filepath.Dir(newpath) {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return syncDir(filepath.Dir(newpath))
}

// tempSuffix ends every temporary file's name.
const tempSuffix = ".tmp"

// IsTemp reports whether the file name (a base name) is one of this
// package's temporary files: one left by a crash if no write is under way.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, tempSuffix) && len(name) > 1+len(tempSuffix)
}
