//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package eventlog

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive, non-blocking flock on f. It is released when f
// is closed (or the process dies).
func lock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if !errors.Is(ferr, syscall.EINTR) {
				return
			}
		}
	})
	if err == nil {
		err = ferr
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return &LockedError{Path: f.Name()}
	default:
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
}
