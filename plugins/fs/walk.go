//go:build unix

package main

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/harness-dev/harness/pluginapi/fsroot"
)

// maxIgnoreFile bounds the .gitignore bytes read per folder.
const maxIgnoreFile = 1 << 20

// parseIgnore parses the text of a .gitignore file in the folder domain
// (its path components below the ignore root) into patterns, in file
// order: blank lines and comments are dropped, a "\r" before the newline
// too; the rest is git's pattern syntax, which go-git implements.
func parseIgnore(data []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// readIgnore reads and parses dir/.gitignore; a missing or unreadable
// file has no patterns.
func readIgnore(dir string, domain []string) []gitignore.Pattern {
	return readIgnoreFile(filepath.Join(dir, ".gitignore"), domain)
}

// readIgnoreIn reads and parses the .gitignore of the folder dir of a
// walk, beneath it (a symlink is followed only to a file in that
// folder).
func readIgnoreIn(dir *os.Root, domain []string) []gitignore.Pattern {
	f, err := dir.OpenFile(".gitignore", os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	return readIgnoreOpen(f, domain)
}

// readIgnoreFile reads and parses the ignore file at path (a .gitignore,
// or .git/info/exclude, whose domain is the repository's root).
func readIgnoreFile(path string, domain []string) []gitignore.Pattern {
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	return readIgnoreOpen(f, domain)
}

// readIgnoreOpen reads and parses the open ignore file f.
func readIgnoreOpen(f *os.File, domain []string) []gitignore.Pattern {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	if err != nil {
		return nil
	}
	return parseIgnore(data, domain)
}

// tree is a folder to walk, with the .gitignore rules that apply to it.
type tree struct {
	dir      *os.Root            // the folder walked, opened
	root     string              // its path, absolute and resolved
	rel      []string            // root's components below the ignore root
	patterns []gitignore.Pattern // from the ignore root down to root's parent
}

// newTree prepares a walk of the folder dir, whose path is root: the
// ignore root is the closest folder at or above root holding .git (the
// repository), else root itself; the repository's .git/info/exclude
// applies first (as git reads it, with the lowest precedence), then the
// .gitignore files from there down to root's parent (read by path: they
// only decide what the walk skips). When those rules ignore root itself,
// the caller asked for it explicitly: it is walked with its own rules
// only.
func newTree(dir *os.Root, root string) tree {
	t := tree{dir: dir, root: root}
	top, repo := root, false
	for dir := root; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			top, repo = dir, true
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	var exclude []gitignore.Pattern
	if repo {
		exclude = readIgnoreFile(filepath.Join(top, ".git", "info", "exclude"), nil)
	}
	if top == root {
		t.patterns = exclude
		return t
	}
	rel, err := filepath.Rel(top, root)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return t
	}
	comps := strings.Split(rel, string(filepath.Separator))
	ps := exclude
	for i := range comps {
		ps = append(ps, readIgnore(filepath.Join(top, filepath.Join(comps[:i]...)), comps[:i])...)
	}
	if gitignore.NewMatcher(ps).Match(comps, true) {
		return t
	}
	t.rel, t.patterns = comps, ps
	return t
}

// Walk budgets: what one glob or grep walk reads of the tree.
const (
	maxWalkEntries = 1_000_000 // entries (files, folders, ignored ones too) one walk reads
	walkBatch      = 1000      // entries read from a folder at a time, ctx checked between
	walkSorted     = 10_000    // a folder of at most this many entries is walked in lexical order
)

// visit is called for every file of a walk that no rule skips: the
// folder holding it (opened: the file is d.Name() beneath it), its
// absolute path, its path below the walk's root with "/" separators, and
// its entry. A symlink is passed as such (d.Type() has fs.ModeSymlink),
// never followed into.
type visit func(dir *os.Root, path, rel string, d fs.DirEntry) error

// walkStats is what a walk read: the entries it visited, and whether its
// budget stopped it with entries left unread.
type walkStats struct {
	visited int
	cut     bool
}

// walker is one walk: its context, what is left of its budget, what it
// read.
type walker struct {
	ctx  context.Context
	t    tree
	left int
	fn   visit
	walkStats
}

// walk visits the files under t.root, skipping .git folders and what
// .gitignore files ignore. Unreadable folders are skipped. It reads at
// most budget entries in all (then it stops, stats.cut saying so),
// folders in batches of walkBatch, so that a folder of millions neither
// loads whole nor delays cancellation: ctx is checked between batches and
// between entries. A folder of at most walkSorted entries is walked in
// lexical order; a larger one batch by batch, each batch sorted, in the
// order the system lists them. It stops on ctx or on fn's error
// (fs.SkipAll ends it quietly).
func (t tree) walk(ctx context.Context, budget int, fn visit) (walkStats, error) {
	w := &walker{ctx: ctx, t: t, left: budget, fn: fn}
	err := w.dir(t.dir, t.root, "", t.rel, t.patterns)
	if err == fs.SkipAll {
		err = nil
	}
	return w.walkStats, err
}

// next reads up to n more entries of d within the walk's budget; more is
// false when d has no more to read (or cannot be read, or the budget is
// spent: then cut says whether entries were left).
func (w *walker) next(d *os.File, n int) (batch []fs.DirEntry, more bool, err error) {
	if err := w.ctx.Err(); err != nil {
		return nil, false, err
	}
	if w.left <= 0 {
		if rest, _ := d.ReadDir(1); len(rest) > 0 {
			w.cut = true
		}
		return nil, false, nil
	}
	batch, err = d.ReadDir(min(n, w.left))
	w.left -= len(batch)
	w.visited += len(batch)
	return batch, err == nil && len(batch) > 0, nil
}

func sortEntries(es []fs.DirEntry) {
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// dir walks the folder root, whose path is dir. Its subfolders are
// opened beneath it, one component at a time, following no symlink
// (fsroot.Dir): a folder swapped for a symlink during the walk is
// skipped, never entered.
func (w *walker) dir(root *os.Root, dir, relDir string, comps []string, ps []gitignore.Pattern) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	rd, err := root.Open(".")
	if err != nil {
		return nil
	}
	d, err := plainDir(rd)
	if err != nil {
		return nil
	}
	open := true
	defer func() {
		if open {
			d.Close()
		}
	}()
	// Read up to walkSorted entries; a folder that ends there is closed
	// before its subfolders are walked, and walked in lexical order.
	var entries []fs.DirEntry
	more := true
	for more && len(entries) < walkSorted {
		var batch []fs.DirEntry
		batch, more, err = w.next(d, min(walkBatch, walkSorted-len(entries)))
		if err != nil {
			return err
		}
		entries = append(entries, batch...)
	}
	if len(entries) == 0 {
		return nil
	}
	if !more {
		d.Close()
		open = false
	}
	if own := readIgnoreIn(root, comps); len(own) > 0 {
		ps = append(ps[:len(ps):len(ps)], own...)
	}
	m := gitignore.NewMatcher(ps)
	for {
		sortEntries(entries)
		if err := w.entries(entries, root, dir, relDir, comps, ps, m); err != nil {
			return err
		}
		if !more {
			return nil
		}
		// A folder larger than walkSorted: the rest, batch by batch, the
		// folder kept open while each batch's subfolders are walked.
		entries, more, err = w.next(d, walkBatch)
		if err != nil {
			return err
		}
	}
}

func (w *walker) entries(entries []fs.DirEntry, root *os.Root, dir, relDir string, comps []string, ps []gitignore.Pattern, m gitignore.Matcher) error {
	for i, e := range entries {
		if i%64 == 63 {
			if err := w.ctx.Err(); err != nil {
				return err
			}
		}
		name := e.Name()
		child := append(comps[:len(comps):len(comps)], name)
		rel := name
		if relDir != "" {
			rel = relDir + "/" + name
		}
		path := filepath.Join(dir, name)
		if e.IsDir() {
			if name == ".git" || m.Match(child, true) {
				continue
			}
			sub, err := fsroot.Dir(root, name)
			if err != nil {
				continue // unreadable, or no longer a folder
			}
			err = w.dir(sub, path, rel, child, ps)
			sub.Close()
			if err != nil {
				return err
			}
			continue
		}
		if m.Match(child, false) {
			continue
		}
		if err := w.fn(root, path, rel, e); err != nil {
			return err
		}
	}
	return nil
}
