//go:build !linux

package keeper

import "syscall"

// supported: only Linux has child subreapers and parent-death signals.
const supported = false

// stopSignal: no keeper runs here to be stopped.
const stopSignal = syscall.SIGHUP

func run(Request) int { return 2 }

func stop(int) error { return nil }

// hangupOnHostDeath: no keeper runs here.
func hangupOnHostDeath() *syscall.SysProcAttr { return nil }
