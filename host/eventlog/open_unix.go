//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package eventlog

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/harness-dev/harness/host/ownership"
)

// openRegular opens the log file at path with flag, refusing anything but a
// regular file: a symbolic link is not followed (O_NOFOLLOW), and a FIFO or
// device is refused before it is opened (Lstat) and again after (fstat), so
// that nothing blocks on it (O_NONBLOCK) or writes through it.
func openRegular(path string, flag int) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err // *fs.PathError names the file
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, notRegular(path, fi.Mode()) // replaced since the first look
		}
		if errors.Is(err, syscall.ELOOP) {
			return nil, notRegular(path, os.ModeSymlink)
		}
		return nil, err
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi.Mode())
	}
	if err := ownership.Check(what, path, fi); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
