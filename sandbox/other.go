//go:build !linux

package sandbox

import "errors"

// errNotLinux: the building blocks are Linux's.
var errNotLinux = errors.New("the sandbox needs Linux")

// Probe finds nothing outside Linux.
func Probe() Kernel { return Kernel{Errors: map[string]string{"sandbox": errNotLinux.Error()}} }
