package sandbox

import (
	"fmt"
	"os"
	"slices"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// readAccess are the Landlock rights a profile adds to the write rights:
// reading files and listing folders, and executing.
const readAccess = landlock.AccessFSSet(ll.AccessFSReadFile | ll.AccessFSReadDir)

const execAccess = landlock.AccessFSSet(ll.AccessFSExecute)

// ConfineThread confines the calling OS thread, and every process it
// starts from now on, to p: no_new_privs; Landlock handling reads,
// writes and execution (reads beneath SystemReads, p.Read and p.Write;
// writes beneath p.Write and to the usual devices; execution of
// p.Program and its interpreters, and of everything readable when
// p.Exec); RLIMIT_NPROC; for root, every capability dropped but the file
// ones (keptCaps: CAP_SYS_PTRACE would let it past Landlock into the
// host's memory); the seccomp filters of Restrict, refusing
// AF_INET, AF_INET6 and AF_PACKET sockets unless p.Network. The caller
// must have locked its goroutine to the thread and start the process from
// it. Without Landlock (ABI 0) it returns an error naming what is
// missing: a profile is an allow-list, and without it nothing is
// confined.
func ConfineThread(p Profile) (Applied, error) {
	var a Applied
	if err := p.Validate(); err != nil {
		return a, err
	}
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi <= 0 {
		return a, fmt.Errorf("no Landlock in this kernel: a plugin cannot be confined (%v)", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return a, fmt.Errorf("set no_new_privs: %w", err)
	}
	write := writeRights(abi)
	handled := write | readAccess | execAccess
	cfg := landlock.Config{
		HandledAccessFS: handled,
		Scoped:          landlock.ScopedSet(ll.ScopeAbstractUnixSocket | ll.ScopeSignal),
	}.BestEffort()
	read := readAccess
	if p.Exec {
		read |= execAccess
	}
	devRW := readAccess | landlock.AccessFSSet(ll.AccessFSWriteFile|ll.AccessFSTruncate)&handled
	var rules []landlock.Rule
	rules = pathRules(rules, read, append(slicesClone(SystemReads), p.Read...))
	rules = pathRules(rules, devRW, append(slicesClone(devWritable), "/dev/pts", "/dev/ptmx"))
	rules = pathRules(rules, readAccess|execAccess, append([]string{p.Program}, interpreters(p.Program)...))
	rules = pathRules(rules, write|read, p.Write)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return a, fmt.Errorf("make the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return a, fmt.Errorf("no Landlock ruleset could be made at ABI %d", abi)
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return a, fmt.Errorf("enforce Landlock: %w", err)
	}
	a.LandlockABI = abi
	pids := p.PidsLimit
	if pids <= 0 {
		pids = DefaultPidsLimit
	}
	if err := limitProcs(pids); err != nil {
		return a, err
	}
	// As root it would keep every capability: CAP_SYS_PTRACE alone gets
	// past Landlock to the host's memory and environment.
	if err := dropCaps(); err != nil {
		return a, err
	}
	if err := loadFilter(!p.Network); err != nil {
		return a, err
	}
	a.Seccomp, a.SocketsRefused = true, !p.Network
	return a, nil
}

// fileAccess are the rights Landlock accepts on a file that is not a
// folder.
const fileAccess = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSReadFile)

// pathRules appends rules granting rights beneath the folders of paths
// and the file rights of rights to its other files; missing paths are
// skipped.
func pathRules(rules []landlock.Rule, rights landlock.AccessFSSet, paths []string) []landlock.Rule {
	var dirs, files []string
	for _, path := range paths {
		fi, err := os.Stat(path)
		switch {
		case err != nil:
		case fi.IsDir():
			dirs = append(dirs, path)
		default:
			files = append(files, path)
		}
	}
	if len(dirs) > 0 {
		rules = append(rules, landlock.PathAccess(rights, dirs...).IgnoreIfMissing())
	}
	if r := rights & fileAccess; len(files) > 0 && r != 0 {
		rules = append(rules, landlock.PathAccess(r, files...).IgnoreIfMissing())
	}
	return rules
}

// HideThread moves the calling OS thread into a mount namespace of its
// own (private propagation) and hides p.Hide there (Mounts: an empty
// read-only tmpfs or /dev/null over each) and binds p.ReadOnly read-only
// over themselves, with a private /dev/shm. It
// needs CAP_SYS_ADMIN (root: an unprivileged caller cannot unshare a
// user namespace from a thread of a multithreaded process) and returns
// an error otherwise, having changed nothing. Call it before
// ConfineThread, on the same locked thread.
func HideThread(p Profile) error {
	if len(p.Hide) == 0 && len(p.ReadOnly) == 0 {
		return nil
	}
	// A hidden folder holding what the process needs (its binary, a
	// folder it may write, its socket folder) or what it declared it
	// reads by name stays shown ("/" and the home folder show none).
	keep := append(append([]string{p.Program}, p.Write...), p.Read...)
	var hide []string
	for _, h := range p.Hide {
		if !slices.ContainsFunc(keep, func(k string) bool { return within(k, []string{h}) }) {
			hide = append(hide, h)
		}
	}
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("make a mount namespace: %w", err)
	}
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	pol := Policy{Mode: ReadOnly, Network: NetworkOff, DenyRead: hide}
	if len(p.ReadOnly) > 0 {
		// the folders between a writable one and a path bound read-only
		// are pinned (Mounts), so that renaming them cannot unbind it
		pol.ReadOnly, pol.WritableRoots = p.ReadOnly, p.Write
	}
	return Mounts(pol)
}
