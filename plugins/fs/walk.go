//go:build unix

package main

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
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

// readIgnoreFile reads and parses the ignore file at path (a .gitignore,
// or .git/info/exclude, whose domain is the repository's root).
func readIgnoreFile(path string, domain []string) []gitignore.Pattern {
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
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
	root     string              // the folder walked, absolute and resolved
	rel      []string            // root's components below the ignore root
	patterns []gitignore.Pattern // from the ignore root down to root's parent
}

// newTree prepares a walk of root: the ignore root is the closest folder
// at or above root holding .git (the repository), else root itself; the
// repository's .git/info/exclude applies first (as git reads it, with the
// lowest precedence), then the .gitignore files from there down to
// root's parent. When those rules ignore root itself, the caller asked
// for it explicitly: it is walked with its own rules only.
func newTree(root string) tree {
	t := tree{root: root}
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

// visit is called for every file of a walk that no rule skips: its
// absolute path, its path below the walk's root with "/" separators, and
// its entry. A symlink is passed as such (d.Type() has fs.ModeSymlink),
// never followed into.
type visit func(path, rel string, d fs.DirEntry) error

// walk visits the files under t.root in lexical order, skipping .git
// folders and what .gitignore files ignore. Unreadable folders are
// skipped. It stops on ctx or on fn's error (fs.SkipAll ends it quietly).
func (t tree) walk(ctx context.Context, fn visit) error {
	err := t.walkDir(ctx, t.root, "", t.rel, t.patterns, fn)
	if err == fs.SkipAll {
		return nil
	}
	return err
}

func (t tree) walkDir(ctx context.Context, dir, relDir string, comps []string, ps []gitignore.Pattern, fn visit) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	if own := readIgnore(dir, comps); len(own) > 0 {
		ps = append(ps[:len(ps):len(ps)], own...)
	}
	m := gitignore.NewMatcher(ps)
	for _, e := range entries {
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
			if err := t.walkDir(ctx, path, rel, child, ps, fn); err != nil {
				return err
			}
			continue
		}
		if m.Match(child, false) {
			continue
		}
		if err := fn(path, rel, e); err != nil {
			return err
		}
	}
	return nil
}
