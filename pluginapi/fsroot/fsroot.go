// Package fsroot opens files so that what a caller checked is what it
// uses, whatever a concurrent process renames or swaps in the meantime.
//
// It follows no symlink. A path is opened beneath an [os.Root] (a
// project's folder, or "/" for an absolute path: see [Abs]) one component
// at a time: each is looked at (Lstat) and then opened beneath the folder
// before it, and the two are compared by device and inode
// ([os.SameFile]). A component that is a symlink fails with [ErrSymlink];
// one swapped for something else between the look and the open fails with
// [ErrChanged]. The caller resolves symlinks when it checks a path
// (filepath.EvalSymlinks) and opens the resolved path here, so that a
// symlink a process swaps in afterwards is refused, never followed: the
// call fails with an error it can report, or acts on the file it checked.
// [Open] also takes what the caller found when it checked (want) and
// fails with ErrChanged unless the file opened is that one.
//
// [WriteFile] replaces a file the atomic way beneath the same root: a
// temporary file created in the file's folder (opened as above), written,
// synced and renamed over the name with [os.Root.Rename], never by
// absolute name, so that a folder swapped for a symlink cannot take the
// write elsewhere. It is the plugin side's equivalent of the host's
// host/atomicfile (which this module cannot import), for a user's files
// beneath a root; unlike it, it does not fsync the folder after the
// rename (an editor's save does not either).
//
// What it does not see: a hard link is the file it links to (a hard link
// in a project to a file outside is, as far as the kernel knows, in the
// project); a bind mount is a folder; what the folder given as the root
// is, is the caller's (os.OpenRoot follows symlinks in that path). Every
// folder on the way must be readable, as os.Root opens folders for
// reading: a folder the user may search but not list cannot be passed.
package fsroot

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

var (
	// ErrSymlink is wrapped by an error about a component of a path that
	// is a symlink.
	ErrSymlink = errors.New("a symlink is in the way")
	// ErrChanged is wrapped by an error about a file or folder that was
	// replaced by another between the moment it was checked and its open.
	ErrChanged = errors.New("it was replaced by another file while being opened")
	// ErrNotRegular is wrapped by WriteFile's error about a name that is
	// not a regular file (a folder, a FIFO, a device).
	ErrNotRegular = errors.New("not a regular file")
)

// Abs opens "/" as a root and returns the absolute path abs as a name
// beneath it, for the functions of this package: fsroot.Open(root, name,
// nil) opens abs following no symlink anywhere on its way. The caller
// closes root.
func Abs(abs string) (root *os.Root, name string, err error) {
	if !filepath.IsAbs(abs) {
		return nil, "", fmt.Errorf("open %s: not an absolute path", abs)
	}
	root, err = os.OpenRoot("/")
	if err != nil {
		return nil, "", err
	}
	name = strings.TrimPrefix(filepath.Clean(abs), "/")
	if name == "" {
		name = "."
	}
	return root, name, nil
}

// parts splits name, a clean path relative to a root, into its
// components; "." has none. A name that is absolute or climbs out with
// ".." is an error.
func parts(name string) ([]string, error) {
	if name == "" || name == "." {
		return nil, nil
	}
	if filepath.IsAbs(name) || filepath.Clean(name) != name {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a clean relative path")}
	}
	ps := strings.Split(name, string(filepath.Separator))
	for _, p := range ps {
		if p == ".." {
			return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("climbs out of its root")}
		}
	}
	return ps, nil
}

// Dir opens the folder name beneath root ("." for root itself, as a new
// Root the caller closes), following no symlink. It fails with
// ErrSymlink, ErrChanged or the system's error, in a *fs.PathError
// naming the part of name where it stopped.
func Dir(root *os.Root, name string) (*os.Root, error) {
	return dir(root, name, false)
}

// dir is Dir; with create, missing folders are made (0755, less the
// umask) on the way.
func dir(root *os.Root, name string, create bool) (*os.Root, error) {
	ps, err := parts(name)
	if err != nil {
		return nil, err
	}
	cur, err := root.OpenRoot(".")
	if err != nil {
		return nil, err
	}
	for i, p := range ps {
		next, err := step(cur, p)
		if create && errors.Is(err, fs.ErrNotExist) {
			if err = cur.Mkdir(p, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
				next, err = step(cur, p)
			}
		}
		cur.Close()
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: filepath.Join(ps[:i+1]...), Err: unwrap(err)}
		}
		cur = next
	}
	return cur, nil
}

// step opens the folder p (one component) beneath dir: what Lstat finds
// there must be a folder, and the folder opened must be it.
func step(dir *os.Root, p string) (*os.Root, error) {
	fi, err := dir.Lstat(p)
	switch {
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, ErrSymlink
	case !fi.IsDir():
		return nil, syscall.ENOTDIR
	}
	sub, err := dir.OpenRoot(p)
	if err != nil {
		return nil, changed(err)
	}
	got, err := sub.Stat(".")
	if err != nil || !os.SameFile(fi, got) {
		sub.Close()
		return nil, ErrChanged
	}
	return sub, nil
}

// changed reads an error of os.Root about a path that was a folder when
// it was looked at: a symlink leading out of the root (or an absolute
// one) is what a swap leaves there.
func changed(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return err
	}
	return ErrChanged
}

// unwrap drops the operation and path of a *fs.PathError, which the
// caller's names.
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// split opens the folder of name beneath root and returns it with name's
// last component ("." for the root itself) and what closes it (nothing
// when it is root itself).
func split(root *os.Root, name string, create bool) (*os.Root, string, func(), error) {
	if _, err := parts(name); err != nil {
		return nil, "", nil, err
	}
	if filepath.Dir(name) == "." {
		return root, filepath.Base(name), func() {}, nil
	}
	d, err := dir(root, filepath.Dir(name), create)
	if err != nil {
		return nil, "", nil, err
	}
	return d, filepath.Base(name), func() { d.Close() }, nil
}

// Lstat describes name beneath root, following no symlink on its way; a
// symlink at name is described as one.
func Lstat(root *os.Root, name string) (fs.FileInfo, error) {
	d, base, done, err := split(root, name, false)
	if err != nil {
		return nil, err
	}
	defer done()
	fi, err := d.Lstat(base)
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: unwrap(err)}
	}
	return fi, nil
}

// Open opens name beneath root for reading, following no symlink and
// without blocking (O_NONBLOCK: a FIFO does not hang it), and returns it
// with what it is (fstat). What it opens must be what Lstat found at name
// just before, and, when want is not nil, the file want describes (what
// the caller found when it checked the path): else it fails with
// ErrChanged. A symlink at name fails with ErrSymlink. Folders open too.
func Open(root *os.Root, name string, want fs.FileInfo) (*os.File, fs.FileInfo, error) {
	d, base, done, err := split(root, name, false)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	fi, err := d.Lstat(base)
	switch {
	case err != nil:
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: unwrap(err)}
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: ErrSymlink}
	case want != nil && !os.SameFile(want, fi):
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: ErrChanged}
	}
	f, err := d.OpenFile(base, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: changed(unwrap(err))}
	}
	got, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !os.SameFile(fi, got) {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: ErrChanged}
	}
	return f, got, nil
}

// WriteFile replaces the contents of the file name beneath root with
// data, or creates it with mode perm and its missing folders (0755), both
// less the umask, following no symlink: a temporary file in the same folder,
// written, synced, given the mode of the file it replaces (perm for a new
// one) and renamed over name beneath that folder. A reader never sees a
// half-written file; a hard link to the old file keeps the old contents.
// A symlink at name fails with ErrSymlink, a folder or a device with
// ErrNotRegular.
func WriteFile(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	d, base, done, err := split(root, name, true)
	if err != nil {
		return err
	}
	defer done()
	if base == "." {
		return &fs.PathError{Op: "write", Path: name, Err: ErrNotRegular}
	}
	mode, exists := perm, false
	switch fi, err := d.Lstat(base); {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return &fs.PathError{Op: "write", Path: name, Err: ErrSymlink}
	case err == nil && !fi.Mode().IsRegular():
		return &fs.PathError{Op: "write", Path: name, Err: ErrNotRegular}
	case err == nil:
		mode, exists = fi.Mode().Perm(), true
	case !errors.Is(err, fs.ErrNotExist):
		return &fs.PathError{Op: "write", Path: name, Err: unwrap(err)}
	}
	tmp := "." + base + ".harness-" + strings.ToLower(rand.Text()[:10])
	// A new file is created with perm less the umask, as os.WriteFile
	// would; a replaced one gets its old mode below.
	createMode := perm
	if exists {
		createMode = 0o600
	}
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, createMode)
	if err != nil {
		return &fs.PathError{Op: "create temporary file", Path: filepath.Join(filepath.Dir(name), tmp), Err: unwrap(err)}
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			d.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if exists {
		if err := f.Chmod(mode); err != nil {
			return err
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := d.Rename(tmp, base); err != nil {
		return &fs.PathError{Op: "replace", Path: name, Err: unwrap(err)}
	}
	ok = true
	return nil
}
