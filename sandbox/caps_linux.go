package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// keptCaps are the capabilities a confined process run by root keeps:
// the file ones root's own workspace needs (files of other users in it).
// Every other one would undo the confinement: CAP_SYS_PTRACE lets a
// Landlocked process ptrace and read /proc/PID/environ and mem of a
// process outside its domain (the host, where the API keys are),
// CAP_MKNOD a block device to read the disk through, CAP_SYS_MODULE,
// CAP_SYS_ADMIN, CAP_DAC_READ_SEARCH (open_by_handle_at past a hidden
// path), CAP_SYS_RESOURCE (past the pids limit), and so on.
var keptCaps = []uint{unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER, unix.CAP_FSETID}

// dropCaps drops every capability but keptCaps from the calling thread:
// from its bounding set, so that no exec gives them back (root's execve
// would), and from its effective, permitted and inheritable sets; its
// ambient set is cleared. A thread without capabilities (not root) is
// left as it is.
func dropCaps() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 {
		return nil
	}
	var keep [2]uint32
	for _, c := range keptCaps {
		keep[c/32] |= 1 << (c % 32)
	}
	for c := uint(0); c < 64; c++ {
		if keep[c/32]&(1<<(c%32)) != 0 {
			continue
		}
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the last capability this kernel has
		}
		if err != nil && !errors.Is(err, unix.EPERM) { // EPERM: no CAP_SETPCAP, nothing to drop there
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	for i := range data {
		data[i].Effective &= keep[i]
		data[i].Permitted &= keep[i]
		data[i].Inheritable &= keep[i]
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}
