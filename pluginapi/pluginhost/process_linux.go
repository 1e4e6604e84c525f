package pluginhost

import (
	"errors"
	"reflect"
	"syscall"
)

// procAttr puts the child in a session of its own, and so its own process
// group, so KillGroup can kill it, and with no controlling terminal: it
// cannot open /dev/tty and write to the user's terminal past the host's
// filter; and has the kernel SIGKILL it when the thread
// that started it dies (StartProcess keeps that thread for the child's
// lifetime).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// procAttrWith is procAttr with the caller's Pdeathsig, when its
// SysProcAttr (nil or holding only Pdeathsig) sets one.
func procAttrWith(user *syscall.SysProcAttr) (*syscall.SysProcAttr, error) {
	a := procAttr()
	if user == nil {
		return a, nil
	}
	rest := *user
	rest.Pdeathsig = 0
	if !reflect.DeepEqual(rest, syscall.SysProcAttr{}) {
		return nil, errors.New("start process: cmd's SysProcAttr may set only Pdeathsig")
	}
	if user.Pdeathsig != 0 {
		a.Pdeathsig = user.Pdeathsig
	}
	return a, nil
}
