//go:build unix

package ownership

import (
	"io/fs"
	"os"
	"syscall"
)

var errNotDir = syscall.ENOTDIR

// openNoWait opens a FIFO without waiting for a writer.
const openNoWait = syscall.O_NONBLOCK

// ownerOf returns the uid owning the file fi describes.
func ownerOf(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// setPrivate sets the folder just made at path to 0700 through a
// descriptor opened without following a link, so that a link swapped in
// since the mkdir is not followed.
func setPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	err = f.Chmod(0o700)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
