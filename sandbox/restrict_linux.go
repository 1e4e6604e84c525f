package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Applied is what Restrict put in place.
type Applied struct {
	// LandlockABI is the ABI Landlock enforced with; 0: none.
	LandlockABI int
	// Seccomp: the filter is loaded; SocketsRefused: it refuses
	// AF_INET, AF_INET6 and AF_PACKET sockets.
	Seccomp, SocketsRefused bool
}

// writeAccess are the Landlock rights the sandbox handles: every write.
// Reads, execution and device ioctls stay free.
const writeAccess = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
	ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate)

// writeRights are the rights handled and granted at Landlock ABI abi:
// without refer before ABI 2, where go-landlock's best effort would
// otherwise fall back to enforcing nothing at all (ABI 1 refuses every
// rename or link across folders anyway).
func writeRights(abi int) landlock.AccessFSSet {
	if abi < 2 {
		return writeAccess &^ landlock.AccessFSSet(ll.AccessFSRefer)
	}
	return writeAccess
}

// devWritable are the device files every command may write.
var devWritable = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// Namespaces says which namespaces of its own the confined thread is
// in.
type Namespaces struct {
	// Mount: Mounts ran there (a private /dev/shm among them).
	Mount bool
	// Net: a network namespace of its own (loopback only).
	Net bool
}

// Restrict confines the calling OS thread, and every process it starts
// from now on, to p: no_new_privs, Landlock (writes beneath
// p.WritableRoots and the temp folder only, the usual devices, the
// private /dev/shm of a mount namespace), RLIMIT_NPROC, and the seccomp
// filters. Without a network namespace of its own and with the network
// off or an allow-list (whose proxy is reached only from a namespace), the filter refuses AF_INET, AF_INET6 and AF_PACKET sockets. The caller must have locked its goroutine to the thread
// (runtime.LockOSThread) and must start the command from it: the other
// threads of the process are not confined. It is irreversible. Mode off
// changes nothing.
func Restrict(p Policy, in Namespaces) (Applied, error) {
	var a Applied
	if !p.Enabled() {
		return a, nil
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return a, fmt.Errorf("set no_new_privs: %w", err)
	}
	abi, err := landlockThread(p, in.Mount)
	if err != nil {
		return a, err
	}
	a.LandlockABI = abi
	if err := limitProcs(p.Pids()); err != nil {
		return a, err
	}
	refuse := p.Network != NetworkOn && !in.Net
	if err := loadFilter(refuse); err != nil {
		return a, err
	}
	a.Seccomp, a.SocketsRefused = true, refuse
	return a, nil
}

// LandlockABI is this kernel's Landlock ABI version; 0 without Landlock.
func LandlockABI() int {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 0 {
		return 0
	}
	return abi
}

// landlockThread enforces p's Landlock ruleset on the calling thread
// (best effort: what the kernel's ABI offers) and returns the ABI; 0
// without Landlock.
func landlockThread(p Policy, privateShm bool) (int, error) {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi <= 0 {
		return 0, nil
	}
	rights := writeRights(abi)
	cfg := landlock.Config{
		HandledAccessFS: rights,
		// From ABI 6: no abstract Unix socket (the host's D-Bus, X11)
		// nor signal outside the sandbox.
		Scoped: landlock.ScopedSet(ll.ScopeAbstractUnixSocket | ll.ScopeSignal),
	}.BestEffort()
	rules := []landlock.Rule{
		landlock.PathAccess(rights&landlock.AccessFSSet(ll.AccessFSWriteFile|ll.AccessFSTruncate), devWritable...).IgnoreIfMissing(),
	}
	roots := p.Writable()
	if privateShm {
		roots = append(slicesClone(roots), "/dev/shm")
	}
	if len(roots) > 0 {
		rules = append(rules, landlock.PathAccess(rights, roots...).IgnoreIfMissing())
	}
	// Terminals a command opens itself (script, expect, a pty).
	rules = append(rules, landlock.PathAccess(rights&landlock.AccessFSSet(ll.AccessFSWriteFile|ll.AccessFSTruncate), "/dev/pts", "/dev/ptmx").IgnoreIfMissing())
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return 0, fmt.Errorf("make the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return 0, nil
	}
	defer unix.Close(fd)
	// The calling thread only, not all of Go's threads: the command is
	// forked from it.
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return 0, fmt.Errorf("enforce Landlock: %w", err)
	}
	return abi, nil
}

// limitProcs sets RLIMIT_NPROC. It counts the processes of the real
// user in the user namespace (and those below it): in a command's own
// user namespace, the command's; in the machine's, all of the user's, so
// there it is set to what the user runs now plus limit. Root is not
// bound by it (the pids cgroup is root's limit).
func limitProcs(limit int) error {
	uid := os.Getuid()
	if uid == 0 {
		return nil
	}
	n := uint64(limit)
	if b, err := os.ReadFile("/proc/self/uid_map"); err == nil && initialUserNS(string(b)) {
		n += uint64(userProcs(uid))
	}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: n, Max: n}); err != nil {
		return fmt.Errorf("set RLIMIT_NPROC: %w", err)
	}
	return nil
}

// initialUserNS reports whether a uid_map is the machine's own (the
// whole range mapped to itself).
func initialUserNS(uidMap string) bool {
	f := strings.Fields(uidMap)
	return len(f) == 3 && f[0] == "0" && f[1] == "0" && f[2] == "4294967295"
}

// userProcs counts the processes /proc shows owned by uid.
func userProcs(uid int) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		var st unix.Stat_t
		if unix.Stat("/proc/"+e.Name(), &st) == nil && int(st.Uid) == uid {
			n++
		}
	}
	return n
}

// escapes are the system calls no sandboxed command needs and that
// could take it out of its sandbox, or reach the kernel's secrets.
var escapes = []string{
	"unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
	"fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
	"ptrace", "process_vm_readv", "process_vm_writev",
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"open_by_handle_at", "name_to_handle_at",
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"acct", "swapon", "swapoff", "reboot", "syslog",
}

// namespaceFlags are clone's flags that make a namespace.
var namespaceFlags = []uint64{
	unix.CLONE_NEWNS, unix.CLONE_NEWUTS, unix.CLONE_NEWIPC, unix.CLONE_NEWUSER,
	unix.CLONE_NEWPID, unix.CLONE_NEWNET, unix.CLONE_NEWCGROUP, unix.CLONE_NEWTIME,
}

// filter is the seccomp policy: refuse the escapes (EPERM), clone with
// a namespace flag (EPERM), clone3 (ENOSYS: its flags sit in memory a
// filter cannot read; libc then uses clone), and, when refuseSockets,
// AF_INET, AF_INET6 and AF_PACKET sockets (EPERM).
func filter(refuseSockets bool) seccomp.Policy {
	var clone []seccomp.NameWithConditions
	for _, f := range namespaceFlags {
		clone = append(clone, seccomp.NameWithConditions{Name: "clone", Conditions: seccomp.ArgumentConditions{
			{Argument: 0, Operation: seccomp.BitsSet, Value: f}}})
	}
	groups := []seccomp.SyscallGroup{
		{Names: escapes, Action: seccomp.ActionErrno},
		{NamesWithCondtions: clone, Action: seccomp.ActionErrno},
		{Names: []string{"clone3"}, Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)},
	}
	if refuseSockets {
		var sockets []seccomp.NameWithConditions
		for _, family := range []uint64{unix.AF_INET, unix.AF_INET6, unix.AF_PACKET} {
			sockets = append(sockets, seccomp.NameWithConditions{Name: "socket", Conditions: seccomp.ArgumentConditions{
				{Argument: 0, Operation: seccomp.Equal, Value: family}}})
		}
		groups = append(groups, seccomp.SyscallGroup{NamesWithCondtions: sockets, Action: seccomp.ActionErrno})
	}
	return seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups}
}

// loadFilter loads, on the calling thread (no TSYNC), the filter that
// refuses other architectures' system calls, then the sandbox's.
func loadFilter(refuseSockets bool) error {
	if err := nativeOnly(); err != nil {
		return err
	}
	// no_new_privs is set already; a flag of 0 keeps the filter to
	// this thread.
	if err := seccomp.LoadFilter(seccomp.Filter{Policy: filter(refuseSockets)}); err != nil {
		return fmt.Errorf("load the seccomp filter: %w", err)
	}
	return nil
}

// nativeArch is the audit architecture of this build; 0 where the
// sandbox does not know it (no second filter then).
func nativeArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// nativeOnly loads a filter answering ENOSYS to every system call made
// through another architecture's entry (int 0x80 on x86-64): go-seccomp-
// bpf's filter lets those through, and socketcall would pass them.
func nativeOnly() error {
	arch := nativeArch()
	if arch == 0 {
		return nil
	}
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 4}, // seccomp_data.arch
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 1, Jf: 0, K: arch},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return fmt.Errorf("load the seccomp architecture filter: %w", e)
	}
	runtime.KeepAlive(prog)
	return nil
}

// seccompSupported reports whether seccomp filters can be loaded.
func seccompSupported() bool { return seccomp.Supported() }
