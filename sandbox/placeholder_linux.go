package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Placeholders makes the read-only placeholders of a policy's missing
// protected names (.vscode, .idea, .zed, .mcp.json in a writable root)
// and removes them when the last command using them ends. A placeholder
// is an empty folder (0700) or an empty file (0600) of the caller's user,
// created without following links (mkdirat, openat O_CREAT|O_EXCL|
// O_NOFOLLOW, beneath the root opened O_NOFOLLOW), and known by its
// device, inode, change and birth times; it is removed only while it is
// still that inode, unchanged and empty (a folder by rmdir, which refuses a non-empty one; a file
// of size 0 with one link). Anything else at the name is never touched.
//
// The table is recorded in a file of its own in a private folder the
// caller names (placeholders-<pid>-<id>: one line per placeholder,
// "dir|file DEV INO CTIME BTIME PATH", PATH Go-quoted), so that the placeholders a killed process
// left are removed by the next table made in that folder (Sweep), under
// the same rule. Safe for concurrent use.
type Placeholders struct {
	dir    string // the private folder of the record; "" records nothing
	record string // this table's record file
	mu     sync.Mutex
	live   map[string]*placeholder // by path
	swept  sync.Once
}

// placeholder is one placeholder made and the commands using it.
type placeholder struct {
	dir  bool
	id   identity
	refs int
}

// identity tells an inode from one that reused its number: device,
// inode, change time (a placeholder is never changed; anything done to it
// from outside changes it) and birth time where the filesystem has one.
type identity struct {
	dev, ino     uint64
	ctime, btime int64 // nanoseconds; btime 0: none
}

// identify is the identity of name in the folder dirfd (AT_FDCWD: path),
// not following a link ("" name: dirfd itself), and its statx.
func identify(dirfd int, name string) (identity, unix.Statx_t, error) {
	var stx unix.Statx_t
	flags := unix.AT_SYMLINK_NOFOLLOW
	if name == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	if err := unix.Statx(dirfd, name, flags, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &stx); err != nil {
		return identity{}, stx, err
	}
	id := identity{
		dev:   unix.Mkdev(stx.Dev_major, stx.Dev_minor),
		ino:   stx.Ino,
		ctime: stx.Ctime.Sec*1e9 + int64(stx.Ctime.Nsec),
	}
	if stx.Mask&unix.STATX_BTIME != 0 {
		id.btime = stx.Btime.Sec*1e9 + int64(stx.Btime.Nsec)
	}
	return id, stx, nil
}

// NewPlaceholders makes a table recorded in dir, a private folder of the
// caller ("": none is recorded, none swept).
func NewPlaceholders(dir string) *Placeholders {
	t := &Placeholders{dir: dir, live: map[string]*placeholder{}}
	if dir != "" {
		t.record = filepath.Join(dir, fmt.Sprintf("placeholders-%d-%p", os.Getpid(), t))
	}
	return t
}

// PlaceholderNames are the paths of p that would get a placeholder: the
// protected names directly in a writable root.
func PlaceholderNames(p Policy) []string {
	if !p.Enabled() {
		return nil
	}
	var out []string
	for _, ro := range p.ReadOnly {
		if slices.Contains(protectedNames, filepath.Base(ro)) && slices.Contains(p.WritableRoots, filepath.Dir(ro)) {
			out = append(out, ro)
		}
	}
	return out
}

// Make creates the placeholders p's missing protected names need, or
// takes a share of the ones this table made that are still there, before
// the command's mounts are made (so that they are bound read-only). It
// returns the paths it covers and the function that gives them back once
// the command has ended (call it once). A name that exists as anything
// else, or cannot be created (a read-only root), is left to the caller.
func (t *Placeholders) Make(p Policy) (covered []string, release func()) {
	t.swept.Do(t.sweep)
	t.mu.Lock()
	defer t.mu.Unlock()
	changed := false
	var held []*placeholder // the very ones taken: a path made again later is another
	for _, path := range PlaceholderNames(p) {
		if ph := t.live[path]; ph != nil {
			if id, _, err := identify(unix.AT_FDCWD, path); err == nil && id == ph.id {
				ph.refs++
				covered, held = append(covered, path), append(held, ph)
				continue
			}
			delete(t.live, path) // no longer ours: never removed
			changed = true
		}
		ph, err := create(path, filepath.Base(path) != ".mcp.json")
		if err != nil {
			continue
		}
		t.live[path] = ph
		covered, held = append(covered, path), append(held, ph)
		changed = true
	}
	if changed {
		t.writeRecord()
	}
	var once sync.Once
	paths := slices.Clone(covered)
	return covered, func() { once.Do(func() { t.release(paths, held) }) }
}

// release gives back a command's share of the placeholders held (at
// paths), removing those no other command holds.
func (t *Placeholders) release(paths []string, held []*placeholder) {
	if len(paths) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, path := range paths {
		ph := held[i]
		if ph.refs--; ph.refs > 0 || t.live[path] != ph {
			continue // still shared, or no longer the table's
		}
		delete(t.live, path)
		remove(path, ph)
	}
	t.writeRecord()
}

// Live lists the placeholders the table holds now, sorted.
func (t *Placeholders) Live() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.live))
	for p := range t.live {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// create makes the placeholder path, a folder when dir, beneath its
// parent opened without following a link; EEXIST when anything is there.
func create(path string, dir bool) (*placeholder, error) {
	parent, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(parent)
	name := filepath.Base(path)
	var fd int
	if dir {
		if err := unix.Mkdirat(parent, name, 0o700); err != nil {
			return nil, err
		}
		fd, err = unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	} else {
		fd, err = unix.Openat(parent, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	}
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	mode := uint32(0o600)
	if dir {
		mode = 0o700
	}
	_ = unix.Fchmod(fd, mode) // exactly, whatever the umask
	id, _, err := identify(fd, "")
	if err != nil {
		return nil, err
	}
	return &placeholder{dir: dir, id: id, refs: 1}, nil
}

// remove removes the placeholder ph at path if it is still that inode,
// of its kind, and empty; it reports whether it did.
func remove(path string, ph *placeholder) bool {
	parent, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(parent)
	name := filepath.Base(path)
	id, st, err := identify(parent, name)
	if err != nil || id != ph.id {
		return false
	}
	if ph.dir {
		// rmdir refuses a folder that is not empty.
		return st.Mode&unix.S_IFMT == unix.S_IFDIR && unix.Unlinkat(parent, name, unix.AT_REMOVEDIR) == nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != 0 || st.Nlink != 1 {
		return false
	}
	return unix.Unlinkat(parent, name, 0) == nil
}

// writeRecord writes the table's record (removes it when the table is
// empty). Best effort: an unwritten record only means a placeholder a
// killed process leaves is not swept.
func (t *Placeholders) writeRecord() {
	if t.record == "" {
		return
	}
	if len(t.live) == 0 {
		_ = os.Remove(t.record)
		return
	}
	var b bytes.Buffer
	for path, ph := range t.live {
		kind := "file"
		if ph.dir {
			kind = "dir"
		}
		fmt.Fprintf(&b, "%s\n", recordLine(kind, ph.id, path))
	}
	_ = os.WriteFile(t.record, b.Bytes(), 0o600)
}

// sweep removes the placeholders recorded by tables of processes that
// are gone, by the rule of remove, and their records.
func (t *Placeholders) sweep() {
	if t.dir == "" {
		return
	}
	entries, err := os.ReadDir(t.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "placeholders-")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() || !errors.Is(unix.Kill(pid, 0), unix.ESRCH) {
			continue // a live process's (or a reused pid's: kept until it is gone)
		}
		file := filepath.Join(t.dir, e.Name())
		for path, ph := range readRecord(file) {
			remove(path, ph)
		}
		_ = os.Remove(file)
	}
}

// readRecord parses a record file; malformed lines are skipped.
func readRecord(file string) map[string]*placeholder {
	out := map[string]*placeholder{}
	f, err := os.Open(file)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		if path, ph, ok := parseRecordLine(sc.Text()); ok {
			out[path] = ph
		}
	}
	return out
}

// recordLine is a record's line for the placeholder of kind ("dir" or
// "file") id at path.
func recordLine(kind string, id identity, path string) string {
	return fmt.Sprintf("%s %d %d %d %d %s", kind, id.dev, id.ino, id.ctime, id.btime, strconv.Quote(path))
}

// parseRecordLine reads "dir|file DEV INO CTIME BTIME PATH", PATH Go-quoted,
// absolute, clean and a protected name (a folder, or .mcp.json a file).
func parseRecordLine(line string) (string, *placeholder, bool) {
	f := strings.SplitN(line, " ", 6)
	if len(f) != 6 || (f[0] != "dir" && f[0] != "file") {
		return "", nil, false
	}
	dev, err1 := strconv.ParseUint(f[1], 10, 64)
	ino, err2 := strconv.ParseUint(f[2], 10, 64)
	ctime, err4 := strconv.ParseInt(f[3], 10, 64)
	btime, err5 := strconv.ParseInt(f[4], 10, 64)
	path, err3 := strconv.Unquote(f[5])
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || !filepath.IsAbs(path) || filepath.Clean(path) != path ||
		!slices.Contains(protectedNames, filepath.Base(path)) || (f[0] == "file") != (filepath.Base(path) == ".mcp.json") {
		return "", nil, false
	}
	return path, &placeholder{dir: f[0] == "dir", id: identity{dev: dev, ino: ino, ctime: ctime, btime: btime}}, true
}
