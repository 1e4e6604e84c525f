package pluginhost

import "syscall"

// procAttr puts the child in its own process group, so KillGroup can kill it
// with everything it started, and has the kernel SIGKILL it when the thread
// that started it dies (StartProcess keeps that thread for the child's
// lifetime).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
