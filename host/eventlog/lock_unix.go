//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package eventlog

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockGrace is how long lock retries a lock held elsewhere before it
// reports the log open in another process. A lock outlives its holder's
// close for a moment when a child process was forked meanwhile (the child
// holds the open file until its exec closes it), or while the holder is
// exiting; an editor restarting harness, or one harness run after another,
// must not fail on that.
const lockGrace = 250 * time.Millisecond

// lock takes an exclusive, non-blocking flock on f, retrying for
// lockGrace. It is released when f is closed (or the process dies).
func lock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	deadline := time.Now().Add(lockGrace)
	for {
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
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		case time.Now().After(deadline):
			return &LockedError{Path: f.Name()}
		}
		time.Sleep(10 * time.Millisecond)
	}
}
