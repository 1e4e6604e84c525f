package main

import "syscall"

// prSetDumpable is PR_SET_DUMPABLE of <linux/prctl.h>.
const prSetDumpable = 4

// hideProcess makes the host non-dumpable: /proc/<pid>/environ, mem, maps
// and fd of this process become readable by root only, so that a process
// of the same user — a bash command the model runs — cannot read the API
// keys in the host's environment. It also stops same-user debuggers from
// attaching and turns core dumps off. Children get their own setting back
// at exec (the kernel resets it), so plugins are not affected.
func hideProcess() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
