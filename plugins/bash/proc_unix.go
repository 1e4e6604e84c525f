//go:build unix && !linux

package main

import "syscall"

// sysProcAttr puts bash in its own session and process group, without a
// controlling terminal (programs that open /dev/tty fail at once).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// groupAlive reports whether a process, perhaps a zombie, is left in the
// group pgid.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
