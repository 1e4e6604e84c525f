//go:build unix && !linux

package llmproc

import "syscall"

// procAttr: own process group (no Pdeathsig outside Linux: the process
// notices its host's death by EOF on stdin and by its parent changing).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(pid int) error {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
