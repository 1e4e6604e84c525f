//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/harness-dev/harness/pluginapi/fsroot"
)

// target is a path a call names: Path as asked (absolute, cleaned) and
// Real, the same with every symlink resolved (for a path that does not
// exist yet: its deepest existing folder resolved, plus the rest).
//
// Real is checked (inside the project, or allowed by the user) and then
// opened, read, listed and written as name beneath root, following no
// symlink (package fsroot): root is the project folder holding Real,
// opened once per call, or "/" for a path outside the project. A symlink
// swapped in on its way since it was resolved fails the call, never leads
// elsewhere. Outside the project, id is Real as resolve found it (nil
// when it did not exist): what is opened must be that file, by device and
// inode.
type target struct {
	Path string
	Real string

	root *os.Root
	base string // the folder root is
	name string // Real beneath root
	id   fs.FileInfo
}

// open opens the folder base (a project folder, or "/") as t's root.
func (t *target) open(base string) error {
	name, err := filepath.Rel(base, t.Real)
	if err != nil || name == ".." || strings.HasPrefix(name, "../") {
		return fmt.Errorf("%s is not in %s", quoteName(t.Real), quoteName(base))
	}
	r, err := os.OpenRoot(base)
	if err != nil {
		return fmt.Errorf("open the folder %s: %w", quoteName(base), unwrapPathError(err))
	}
	t.root, t.base, t.name = r, base, name
	return nil
}

// identify notes what Real is now, following no symlink, as the file any
// later open must be (t.id); a missing file has none.
func (t *target) identify() error {
	fi, err := fsroot.Lstat(t.root, t.name)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("resolve %s: %w", quoteName(t.Real), errChanged)
	case err == nil:
		t.id = fi
	case errors.Is(err, fsroot.ErrSymlink), errors.Is(err, fsroot.ErrChanged):
		return fmt.Errorf("resolve %s: %w", quoteName(t.Real), errChanged)
	}
	return nil
}

// close closes t's root.
func (t target) close() {
	if t.root != nil {
		t.root.Close()
	}
}

// errChanged is what the model is told when a path changed under a call.
var errChanged = errors.New("it changed while this call ran (a symlink or another file took its place, or the place of a folder on its way); nothing was done with it: try again")

// String names the target for results: the path, and where it leads when
// a symlink is involved.
func (t target) String() string {
	if t.Real == t.Path {
		return quoteName(t.Path)
	}
	return quoteName(t.Path) + " (symlink to " + quoteName(t.Real) + ")"
}

// quoteName is how a result names a path or a file name: as it is, unless
// that would be ambiguous or not UTF-8. A name that is not UTF-8, holds a
// newline or any other character that does not print (a control, a
// format character such as U+202E, a space other than ' '), or starts
// with a double quote is Go-quoted (strconv.Quote), so that one result
// line is one name, and the result valid UTF-8; every path argument takes
// such a quoted name back (unquoteArg).
func quoteName(p string) string {
	if utf8.ValidString(p) && !strings.HasPrefix(p, `"`) && !strings.ContainsFunc(p, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return p
	}
	return strconv.Quote(p)
}

// unquoteArg takes back a path argument that a result quoted: a whole
// Go-quoted string ("\"/p/a\\nb\"") is its unquoted text. A file whose
// name itself is such a string is reached by its absolute path (where the
// quotes are not at both ends).
func unquoteArg(p string) string {
	if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}

// resolvePath makes p absolute against cwd and resolves its symlinks.
// A symlink loop is an error (the kernel's and filepath's limits stop
// it), never an endless walk.
func resolvePath(cwd, p string) (target, error) {
	p = unquoteArg(p)
	switch {
	case strings.TrimSpace(p) == "":
		return target{}, errors.New("the path is empty")
	case strings.ContainsRune(p, 0):
		return target{}, errors.New("the path contains a NUL byte")
	}
	if !filepath.IsAbs(p) {
		if cwd == "" || !filepath.IsAbs(cwd) {
			return target{}, fmt.Errorf("%q is relative and the session has no working directory; give an absolute path", p)
		}
		p = filepath.Join(cwd, p)
	}
	abs := filepath.Clean(p)
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return target{Path: abs, Real: real}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return target{}, resolveError(abs, err)
	}
	if fi, lerr := os.Lstat(abs); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		dest, _ := os.Readlink(abs)
		return target{}, fmt.Errorf("%s is a symlink to %s, which does not exist", quoteName(abs), quoteName(dest))
	}
	// Resolve the deepest existing folder and keep the missing rest.
	dir, rest := abs, ""
	for {
		parent := filepath.Dir(dir)
		rest = filepath.Join(filepath.Base(dir), rest)
		if parent == dir {
			return target{Path: abs, Real: abs}, nil
		}
		dir = parent
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return target{Path: abs, Real: filepath.Join(real, rest)}, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return target{}, resolveError(dir, err)
		}
	}
}

// resolveError is the error resolving p met: EINVAL (readlink of a name
// that was a symlink when lstat looked) means p changed under the call.
func resolveError(p string, err error) error {
	if errors.Is(err, syscall.EINVAL) {
		err = errChanged
	}
	return fmt.Errorf("resolve %s: %w", quoteName(p), unwrapPathError(err))
}

// unwrapPathError drops the operation and path of a *fs.PathError, which
// the caller's message already names; a path that changed under the call
// (fsroot.ErrSymlink, fsroot.ErrChanged) is errChanged.
func unwrapPathError(err error) error {
	if errors.Is(err, fsroot.ErrSymlink) || errors.Is(err, fsroot.ErrChanged) {
		return errChanged
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// What the suggestions for a missing name look at: the first
// maxSuggestLook names of the folder (read in batches, the context
// checked between them), each compared on its first maxSuggestName runes.
const (
	maxSuggestLook = 10_000
	maxSuggestName = 64
)

// missingMessage says that t does not exist and names the nearest
// existing names: the deepest existing folder on the way to t.Real
// (beneath t's root, following no symlink), and the entries of that
// folder closest to the first missing name, among the first
// maxSuggestLook it lists. When ctx ends, it names none.
func missingMessage(ctx context.Context, t target) string {
	msg := fmt.Sprintf("%s does not exist", quoteName(t.Path))
	if t.root == nil {
		return msg
	}
	dir, missing := t.name, ""
	for {
		if dir == "." {
			return msg
		}
		missing = filepath.Base(dir)
		dir = filepath.Dir(dir)
		if fi, err := fsroot.Lstat(t.root, dir); err == nil && fi.IsDir() {
			break
		}
	}
	abs := filepath.Join(t.base, dir)
	if filepath.Join(abs, missing) != t.Real {
		msg = fmt.Sprintf("%s does not exist (no %s in %s)", quoteName(t.Path), quoteName(missing), quoteName(abs))
	}
	f, _, err := fsroot.Open(t.root, dir, nil)
	if err != nil {
		return msg
	}
	d, err := plainDir(f)
	if err != nil {
		return msg
	}
	defer d.Close()
	var names []string
	for len(names) < maxSuggestLook {
		if ctx.Err() != nil {
			return msg
		}
		batch, err := d.ReadDir(min(1000, maxSuggestLook-len(names)))
		for _, e := range batch {
			n := e.Name()
			if e.IsDir() {
				n += "/"
			}
			names = append(names, n)
		}
		if err != nil || len(batch) == 0 {
			break
		}
	}
	near := nearestNames(ctx, missing, names, 5)
	if len(near) == 0 {
		return msg
	}
	for i, n := range near {
		near[i] = quoteName(filepath.Join(abs, n))
		if strings.HasSuffix(n, "/") {
			near[i] += "/"
		}
	}
	return msg + "; did you mean " + strings.Join(near, ", ") + "?"
}

// nearestNames returns up to n of names (a trailing "/" marks a
// folder) close to want: a small edit distance, case-insensitively, on
// their first maxSuggestName runes, the same name without its extension,
// or a shared prefix of at least 3 characters. Closest first, then by
// name. When ctx ends, it returns none.
func nearestNames(ctx context.Context, want string, names []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	w := strings.ToLower(want)
	wStem := strings.TrimSuffix(w, filepath.Ext(w))
	wc := []rune(w)
	wc = wc[:min(len(wc), maxSuggestName)]
	limit := max(2, len(wc)/3)
	var hits []scored
	for i, name := range names {
		if i%256 == 255 && ctx.Err() != nil {
			return nil
		}
		l := strings.ToLower(strings.TrimSuffix(name, "/"))
		lc := []rune(l)
		lc = lc[:min(len(lc), maxSuggestName)]
		d := limit + 1
		if len(lc)-len(wc) <= limit && len(wc)-len(lc) <= limit { // else the distance is over limit
			d = levenshtein(wc, lc)
		}
		switch {
		case d <= limit:
		case wStem != "" && strings.TrimSuffix(l, filepath.Ext(l)) == wStem:
			d = limit + 1
		case sharedPrefix(w, l) >= 3:
			d = limit + 2 + len(l) - sharedPrefix(w, l)
		default:
			continue
		}
		hits = append(hits, scored{name, d})
	}
	if ctx.Err() != nil {
		return nil
	}
	slices.SortFunc(hits, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for i := 0; i < len(hits) && i < n; i++ {
		out = append(out, hits[i].name)
	}
	return out
}

func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// levenshtein is the edit distance between ra and rb (callers bound
// their lengths: maxSuggestName).
func levenshtein(ra, rb []rune) int {
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
