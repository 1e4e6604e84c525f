//go:build !linux

package keeper

import "syscall"

// supported: only Linux has child subreapers and parent-death signals.
const supported = false

func run([]string) int { return 2 }

func stop(int) error { return nil }

// hangupOnHostDeath: no keeper runs here.
func hangupOnHostDeath() *syscall.SysProcAttr { return nil }
