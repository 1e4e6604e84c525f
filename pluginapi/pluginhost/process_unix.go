//go:build unix && !linux

package pluginhost

import (
	"errors"
	"syscall"
)

// procAttr puts the child in a session of its own (its own process group,
// no controlling terminal: see process_linux.go), so KillGroup can kill it
// with everything it started. (No Pdeathsig outside Linux: the child
// notices its host's death by EOF on stdin and by its parent changing.)
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// procAttrWith is procAttr; a SysProcAttr of the caller's is refused.
func procAttrWith(user *syscall.SysProcAttr) (*syscall.SysProcAttr, error) {
	if user != nil {
		return nil, errors.New("start process: cmd's SysProcAttr must be unset")
	}
	return procAttr(), nil
}
