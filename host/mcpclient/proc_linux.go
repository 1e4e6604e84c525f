package mcpclient

import "syscall"

// procAttr puts the server in its own process group, so that stopping it
// kills everything it started, and has the kernel SIGKILL it when the
// thread that started it dies — with the host (see startLocked).
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
