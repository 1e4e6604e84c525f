package pluginhost

import "syscall"

// procAttr puts the child in its own process group, so KillGroup can kill it
// with everything it started, and has the kernel SIGKILL it when the thread
// that started it dies (StartProcess keeps that thread for the child's
// lifetime).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
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
