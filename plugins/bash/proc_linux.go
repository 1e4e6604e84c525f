package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts bash in its own session and process group, without a
// controlling terminal (programs that open /dev/tty fail at once), and has
// the kernel SIGKILL it if the plugin dies without cleaning up.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// groupAlive reports whether a live process is left in the group pgid.
// Zombies do not count: reaping orphans is init's job, and a slow init
// would otherwise keep a dead group "alive".
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // the group answered the signal
	}
	want := strconv.Itoa(pgid)
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parens.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 && f[2] == want && f[0] != "Z" {
			return true
		}
	}
	return false
}
