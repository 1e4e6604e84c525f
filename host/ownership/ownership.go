package ownership

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// ErrUntrusted is matched (errors.Is) by every refusal of this package.
var ErrUntrusted = errors.New("not trusted")

// Error is a file or folder refused because another user could have
// written it. Error() is one line naming the path, the owner, the mode and
// the fix.
type Error struct {
	// What the file is to harness: "state folder", "session log" …
	What string
	// Path is the file or folder as the caller named it.
	Path string
	// UID is the owner's uid and Me this process's effective uid.
	UID, Me int
	// Mode is the permission bits, with setuid, setgid and sticky.
	Mode fs.FileMode
	// Foreign: owned by a user other than Me or root. Writable: writable by
	// group or others.
	Foreign, Writable bool
	// Link: Path is a symbolic link, and the link itself is refused.
	Link bool
}

// Unwrap makes an *Error match ErrUntrusted.
func (e *Error) Unwrap() error { return ErrUntrusted }

func (e *Error) Error() string {
	var b strings.Builder
	path := quote(e.Path)
	b.WriteString(e.What)
	b.WriteString(" ")
	b.WriteString(path)
	if e.Link {
		b.WriteString(" (a symbolic link)")
	}
	notMe := fmt.Sprintf("not by this user (uid %d) or root", e.Me)
	if e.Me == 0 {
		notMe = "not by root (this user)"
	}
	switch {
	case e.Foreign && e.Writable:
		fmt.Fprintf(&b, " is owned by %s, %s, and writable by group or others (mode %s)", owner(e.UID), notMe, mode(e.Mode))
	case e.Foreign:
		fmt.Fprintf(&b, " is owned by %s, %s (mode %s)", owner(e.UID), notMe, mode(e.Mode))
	default:
		fmt.Fprintf(&b, " is writable by group or others (mode %s, owner %s)", mode(e.Mode), owner(e.UID))
	}
	b.WriteString("; refused: ")
	switch {
	case e.Link:
		fmt.Fprintf(&b, "remove the link (rm %s) or point the setting at a folder of yours", path)
	case e.Foreign && e.Writable:
		fmt.Fprintf(&b, "if you trust its contents, chown %d %s && chmod go-w %s (as root); else remove it", e.Me, path, path)
	case e.Foreign:
		fmt.Fprintf(&b, "if you trust its contents, chown %d %s (as root); else remove it", e.Me, path)
	default:
		fmt.Fprintf(&b, "chmod go-w %s", path)
	}
	return b.String()
}

// Check returns nil if the file or folder fi describes is trusted (see
// the package doc), else an [*Error]. what says what the file is to
// harness ("session log"); path names it in the message.
func Check(what, path string, fi fs.FileInfo) error {
	uid, ok := ownerOf(fi)
	if !ok {
		return nil // no Unix owners here
	}
	me := os.Geteuid()
	e := &Error{What: what, Path: path, UID: uid, Me: me, Mode: fi.Mode() & (fs.ModePerm | fs.ModeSticky | fs.ModeSetuid | fs.ModeSetgid),
		Foreign: uid != me && uid != 0, Writable: fi.Mode().Perm()&0o022 != 0}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// A link's own mode means nothing; who owns it may replace it.
		e.Link, e.Writable = true, false
	}
	if !e.Foreign && !e.Writable {
		return nil
	}
	return e
}

// CheckFile checks the open file f by fstat, naming it f.Name(): what is
// checked is the file that is read.
func CheckFile(what string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", f.Name(), err)
	}
	return Check(what, f.Name(), fi)
}

// ReadFile reads the file at path (a symbolic link is followed) if it is
// trusted, checked by fstat of the descriptor it reads: a rename between
// check and read cannot swap it. A missing file yields an error matching
// fs.ErrNotExist.
//
// The file is opened without waiting (O_NONBLOCK where there is one) and
// must be a regular file: a FIFO or device put where a file should be is
// refused, never read, so it cannot hang harness's start.
func ReadFile(what, path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return nil, err // *fs.PathError names it
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", f.Name(), err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s is not a regular file", what, quote(path))
	}
	if err := Check(what, path, fi); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// CheckDir checks the folder at path. A symbolic link there must belong
// to this user or root, and the folder it names is checked. A missing
// path yields an error matching fs.ErrNotExist; anything but a folder, an
// error saying so.
func CheckDir(what, path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err // *fs.PathError names it
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if err := Check(what, path, fi); err != nil {
			return err
		}
		if fi, err = os.Stat(path); err != nil {
			return err
		}
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s %s is not a folder", what, quote(path))
	}
	return Check(what, path, fi)
}

// MkdirAll creates the folder path and its missing parents, each 0700
// whatever the umask. A folder that exists, path included, is left as it
// is; something else there is an error.
func MkdirAll(path string) error {
	fi, err := os.Stat(path)
	if err == nil {
		if fi.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: path, Err: errNotDir}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if parent := filepath.Dir(path); parent != path {
		if err := MkdirAll(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil // made by another process meanwhile: the caller checks it
		}
		return err
	}
	return setPrivate(path)
}

// owner names uid: "alice (uid 1000)", or "uid 1000" when the user
// database does not know it.
func owner(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" && printable(u.Username) {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}

// mode shows m as the octal of chmod: 0777, 1777 for a sticky folder.
func mode(m fs.FileMode) string {
	n := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		n |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		n |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		n |= 0o1000
	}
	return fmt.Sprintf("%04o", n)
}

// quote shows path so that it can be pasted into a shell and shows
// nothing a terminal would act on: as is when it holds only safe
// characters, in single quotes when it holds other printable ones, Go
// quoted (escapes visible) when it holds anything not printable.
func quote(path string) string {
	if !printable(path) {
		return strconv.Quote(path)
	}
	if strings.IndexFunc(path, func(r rune) bool { return !safe(r) }) < 0 && path != "" {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}

// printable reports whether s is valid UTF-8 of printable characters and
// plain spaces only (no control, format or bidi characters).
func printable(s string) bool {
	for _, r := range s {
		if r == unicode.ReplacementChar || r != ' ' && !unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// safe reports whether r needs no shell quoting.
func safe(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("/._-+,:@%=", r) ||
		r > 0x7f && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))
}
