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
	"unicode"
	"unicode/utf8"
)

// target is a path a call names: Path as asked (absolute, cleaned) and
// Real, the same with every symlink resolved (for a path that does not
// exist yet: its deepest existing folder resolved, plus the rest).
type target struct {
	Path string
	Real string
}

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
		return target{}, fmt.Errorf("resolve %s: %w", quoteName(abs), unwrapPathError(err))
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
			return target{}, fmt.Errorf("resolve %s: %w", quoteName(dir), unwrapPathError(err))
		}
	}
}

// unwrapPathError drops the operation and path of a *fs.PathError, which
// the caller's message already names.
func unwrapPathError(err error) error {
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

// missingMessage says that path does not exist and names the nearest
// existing names: the deepest existing folder on the way, and the entries
// of that folder closest to the first missing name, among the first
// maxSuggestLook it lists. When ctx ends, it names none.
func missingMessage(ctx context.Context, path string) string {
	dir, missing := path, ""
	for {
		parent := filepath.Dir(dir)
		missing = filepath.Base(dir)
		if parent == dir {
			return fmt.Sprintf("%s does not exist", quoteName(path))
		}
		dir = parent
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
	}
	msg := fmt.Sprintf("%s does not exist", quoteName(path))
	if filepath.Join(dir, missing) != path {
		msg = fmt.Sprintf("%s does not exist (no %s in %s)", quoteName(path), quoteName(missing), quoteName(dir))
	}
	d, err := os.OpenFile(dir, os.O_RDONLY|nonblock, 0)
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
		near[i] = quoteName(filepath.Join(dir, n))
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
