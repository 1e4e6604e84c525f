//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package eventlog

import "os"

// lock is a no-op where flock(2) is unavailable: one writer per log is then
// the caller's responsibility.
func lock(*os.File) error { return nil }
