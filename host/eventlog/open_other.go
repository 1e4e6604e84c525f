//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package eventlog

import (
	"fmt"
	"os"

	"github.com/harness-dev/harness/host/ownership"
)

// openRegular opens the log file at path with flag, refusing anything but a
// regular file (checked before and after the open; without O_NOFOLLOW a
// link swapped in between is not caught here).
func openRegular(path string, flag int) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", path, err)
		}
		return nil, notRegular(path, fi.Mode())
	}
	if err := ownership.Check(what, path, fi); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
