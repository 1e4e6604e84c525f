package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Mounts applies p's mounts in the caller's mount namespace, which must
// be its own with private propagation (the caller holds CAP_SYS_ADMIN in
// it): a private tmpfs on /dev/shm (the machine's is shared by every
// process; Python's multiprocessing needs one); every DenyRead path that exists is hidden — an empty read-only
// tmpfs over a folder, /dev/null over a file — with the ReadOnly paths
// inside it shown again, read-only; then every other ReadOnly path that
// exists is bound read-only over itself. A missing hooks or info folder
// of a git folder is created empty first (git's own folders, as git init
// makes them). Before those, every folder between a writable root and an
// existing ReadOnly or DenyRead path beneath it is bound over itself
// (pinFolders): a mount point cannot be renamed, so a command cannot move
// .git aside and make a new one whose hooks are not bound. Paths that do
// not exist are skipped. Mode off mounts nothing.
func Mounts(p Policy) error {
	if !p.Enabled() {
		return nil
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=50%"); err != nil {
			return fmt.Errorf("mount a private /dev/shm: %w", err)
		}
	}
	hidden := existing(p.DenyRead)
	// A hidden path inside another hidden one is hidden with it.
	hidden = slices.DeleteFunc(hidden, func(h string) bool {
		return slices.ContainsFunc(hidden, func(o string) bool { return o != h && within(h, []string{o}) })
	})
	for _, ro := range p.ReadOnly {
		ensureGitFolder(ro)
	}
	if err := pinFolders(p); err != nil {
		return err
	}
	shown := map[string]bool{}
	for _, h := range hidden {
		var inside []string
		for _, ro := range p.ReadOnly {
			if ro != h && within(ro, []string{h}) {
				inside = append(inside, ro)
			}
		}
		done, err := hide(h, inside)
		if err != nil {
			return err
		}
		for _, d := range done {
			shown[d] = true
		}
	}
	for _, ro := range existing(p.ReadOnly) {
		if shown[ro] || slices.ContainsFunc(hidden, func(h string) bool { return within(ro, []string{h}) }) {
			continue
		}
		if err := bindReadOnly(ro, ro); err != nil {
			return err
		}
	}
	return nil
}

// pinFolders binds over itself (read-write, as it was) every folder
// between a writable root and an existing ReadOnly or DenyRead path
// beneath it, shallowest first and before those paths are bound (a bind
// does not carry the mounts beneath its source). The kernel refuses to
// rename or remove a mount point (EBUSY), so `mv .git .g && cp -a .g .git`
// cannot leave a .git whose hooks and config are not the bound ones; the
// paths themselves, bound, are mount points already. Symbolic links are
// not followed (a link is not what the path's binds hang on).
func pinFolders(p Policy) error {
	roots := p.Writable()
	seen := map[string]bool{}
	var pins []string
	for _, path := range append(slices.Clone(p.ReadOnly), p.DenyRead...) {
		if _, err := os.Lstat(path); err != nil {
			continue
		}
		for _, r := range roots {
			rel, err := filepath.Rel(r, path)
			if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
				continue
			}
			d := r
			parts := strings.Split(rel, string(filepath.Separator))
			for _, part := range parts[:len(parts)-1] {
				d = filepath.Join(d, part)
				if !seen[d] {
					seen[d] = true
					pins = append(pins, d)
				}
			}
		}
	}
	slices.SortStableFunc(pins, func(a, b string) int {
		return strings.Count(a, string(filepath.Separator)) - strings.Count(b, string(filepath.Separator))
	})
	for _, d := range pins {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		if err := unix.Mount(d, d, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("pin %s: %w", d, err)
		}
	}
	return nil
}

// existing keeps the paths that exist (following symbolic links).
func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// ensureGitFolder creates path empty when it is the hooks or info folder
// of a git folder (one holding HEAD and objects) and missing, so that it
// can be bound read-only: a command cannot then create it.
func ensureGitFolder(path string) {
	if b := filepath.Base(path); b != "hooks" && b != "info" {
		return
	}
	git := filepath.Dir(path)
	if _, err := os.Lstat(filepath.Join(git, "HEAD")); err != nil {
		return
	}
	if fi, err := os.Lstat(filepath.Join(git, "objects")); err != nil || !fi.IsDir() {
		return
	}
	_ = os.Mkdir(path, 0o755) // EEXIST: there already
}

// hide mounts an empty read-only tmpfs over the folder h (/dev/null over
// a file), showing the paths of inside read-only within it. It returns
// the paths shown.
func hide(h string, inside []string) ([]string, error) {
	fi, err := os.Stat(h)
	if err != nil {
		return nil, nil // gone meanwhile: nothing to hide
	}
	if !fi.IsDir() {
		return nil, bindReadOnly(os.DevNull, h)
	}
	// The paths to show are opened before the tmpfs covers them.
	type keep struct {
		path string
		fd   int
		dir  bool
	}
	var keeps []keep
	defer func() {
		for _, k := range keeps {
			_ = unix.Close(k.fd)
		}
	}()
	for _, in := range existing(inside) {
		fd, err := unix.Open(in, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			_ = unix.Close(fd)
			continue
		}
		keeps = append(keeps, keep{in, fd, st.Mode&unix.S_IFMT == unix.S_IFDIR})
	}
	if err := unix.Mount("tmpfs", h, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=64k,mode=0755"); err != nil {
		return nil, fmt.Errorf("hide %s: %w", h, err)
	}
	var shown []string
	for _, k := range keeps {
		rel, err := filepath.Rel(h, k.path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		target := filepath.Join(h, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return nil, fmt.Errorf("show %s: %w", k.path, err)
		}
		if k.dir {
			err = os.Mkdir(target, 0o755)
		} else {
			err = os.WriteFile(target, nil, 0o444)
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("show %s: %w", k.path, err)
		}
		if err := bindReadOnly("/proc/self/fd/"+strconv.Itoa(k.fd), target); err != nil {
			return nil, fmt.Errorf("show %s: %w", k.path, err)
		}
		shown = append(shown, k.path)
	}
	if err := unix.Mount("", h, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=64k,mode=0755"); err != nil {
		return nil, fmt.Errorf("hide %s: make it read-only: %w", h, err)
	}
	return shown, nil
}

// bindReadOnly binds src over target, read-only. The remount keeps the
// flags the source's mount has (nosuid, nodev, noexec, …): in a user
// namespace they are locked and a remount without them is refused.
func bindReadOnly(src, target string) error {
	if err := unix.Mount(src, target, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %s read-only: %w", target, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(target, &st); err != nil {
		return fmt.Errorf("bind %s read-only: %w", target, err)
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st.Flags&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	if err := unix.Mount("", target, "", flags, ""); err != nil {
		return fmt.Errorf("bind %s read-only: remount: %w", target, err)
	}
	return nil
}

// LoopbackUp brings up lo in the caller's network namespace (a new one
// has it down): the command gets 127.0.0.1 and nothing else. The caller
// holds CAP_NET_ADMIN there.
func LoopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring lo up: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bring lo up: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring lo up: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring lo up: %w", err)
	}
	return nil
}
