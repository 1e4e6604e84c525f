//go:build unix && !linux

package mcpclient

import "syscall"

// procAttr puts the server in its own process group, so that stopping it
// kills everything it started. (No Pdeathsig outside Linux: a stdio server
// sees EOF on its stdin when the host dies, and MCP servers exit on it.)
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
