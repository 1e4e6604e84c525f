//go:build unix && !linux

package pluginhost

import "syscall"

// procAttr puts the child in its own process group, so KillGroup can kill it
// with everything it started. (No Pdeathsig outside Linux: the child
// notices its host's death by EOF on stdin and by its parent changing.)
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup SIGKILLs the process group led by pid.
func killGroup(pid int) error {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

// groupAlive reports whether any process of the group led by pid is left.
func groupAlive(pid int) bool {
	return syscall.Kill(-pid, 0) == nil
}
