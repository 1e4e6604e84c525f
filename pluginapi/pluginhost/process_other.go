//go:build !unix

package pluginhost

import (
	"errors"
	"os"
	"syscall"
)

// procAttr has nothing to add where there are no process groups.
func procAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the child process itself.
func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// procAttrWith is procAttr; a SysProcAttr of the caller's is refused.
func procAttrWith(user *syscall.SysProcAttr) (*syscall.SysProcAttr, error) {
	if user != nil {
		return nil, errors.New("start process: cmd's SysProcAttr must be unset")
	}
	return procAttr(), nil
}
