//go:build !linux

package sandbox

import "errors"

// errNotLinux: the building blocks are Linux's.
var errNotLinux = errors.New("the sandbox needs Linux")

// Probe finds nothing outside Linux.
func Probe() Kernel { return Kernel{Errors: map[string]string{"sandbox": errNotLinux.Error()}} }

// ConfineThread confines nothing outside Linux: it says so.
func ConfineThread(Profile) (Applied, error) { return Applied{}, errNotLinux }

// Applied is what a confinement put in place: nothing here.
type Applied struct {
	LandlockABI             int
	Seccomp, SocketsRefused bool
}

// HideThread hides nothing outside Linux.
func HideThread(Profile) error { return errNotLinux }

// LandlockABI is 0 outside Linux.
func LandlockABI() int { return 0 }
