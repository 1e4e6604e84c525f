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
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/harness-dev/harness/pluginapi"
)

// maxGlobResults is how many paths glob lists.
const maxGlobResults = 100

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

func (s *server) glob(ctx context.Context, call *pluginapi.Call, a globArgs) (pluginapi.Result, error) {
	if a.Pattern == "" {
		return pluginapi.ErrorResult("pattern is empty"), nil
	}
	pattern := filepath.ToSlash(a.Pattern)
	if !doublestar.ValidatePattern(pattern) {
		return pluginapi.ErrorResult("pattern %q is not a valid glob", a.Pattern), nil
	}
	where := a.Path
	if where == "" {
		where = "."
	}
	// The pattern's literal leading folders (all of an absolute pattern's)
	// are where the walk starts.
	base, rest := doublestar.SplitPattern(pattern)
	if filepath.IsAbs(base) {
		where = base
	} else if base != "." {
		where = filepath.Join(where, base)
	}
	if rest == "" {
		return pluginapi.ErrorResult("pattern %q ends with a slash; glob lists files (e.g. %s**/*)", a.Pattern, pattern), nil
	}
	t, err := s.resolve(ctx, call, "list files in", where)
	if err != nil {
		return pluginapi.ErrorResult("%v", err), nil
	}
	defer t.close()
	fi, err := s.files.Stat(ctx, t)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pluginapi.ErrorResult("%s", missingMessage(ctx, t)), nil
	case err != nil:
		return pluginapi.ErrorResult("glob %s: %v", t, unwrapPathError(err)), nil
	case !fi.IsDir():
		return pluginapi.ErrorResult("%s is not a directory; path names the folder to search in", t), nil
	}
	top, err := openDir(t, fi)
	if err != nil {
		return pluginapi.ErrorResult("glob %s: %v", t, unwrapPathError(err)), nil
	}
	defer top.Close()
	type match struct {
		path    string
		modTime time.Time
	}
	var found []match
	over := 0 // matches past the s.walk.keep kept, counted only
	ws, err := newTree(top, t.Real).walk(ctx, s.walk.entries, func(dir *os.Root, p, rel string, d fs.DirEntry) error {
		if ok, _ := doublestar.Match(rest, rel); !ok {
			return nil
		}
		if len(found) >= s.walk.keep {
			over++ // not stat'ed: a symlink to a folder is counted too
			return nil
		}
		var fi fs.FileInfo
		var err error
		if d.Type()&fs.ModeSymlink != 0 {
			fi, err = os.Stat(p) // where it leads, for its time and kind only: never opened, never shown
		} else {
			fi, err = dir.Lstat(d.Name())
		}
		if err != nil || fi.IsDir() {
			return nil
		}
		found = append(found, match{filepath.Join(t.Path, rel), fi.ModTime()})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return pluginapi.Result{}, ctx.Err()
		}
		return pluginapi.ErrorResult("glob %s: %v", t, err), nil
	}
	meta := pluginapi.Meta{Title: fmt.Sprintf("Find %s in %s", quoted(rest), display(call, t.Path))}
	var parts []string
	if over > 0 {
		parts = append(parts, fmt.Sprintf("%d more files matched after the first %d, counted only: the files listed are the newest of those %d, not of all",
			over, s.walk.keep, s.walk.keep))
	}
	if ws.cut {
		parts = append(parts, fmt.Sprintf("the walk stopped after reading %d entries (the most one glob reads); files past those were not looked at", ws.visited))
	}
	incomplete := ""
	if len(parts) > 0 {
		incomplete = "[results incomplete: " + strings.Join(parts, "; ") + "; narrow the pattern or path]\n"
	}
	if len(found) == 0 {
		content := fmt.Sprintf("No files match %s in %s.", quoted(rest), t)
		if incomplete != "" {
			content += "\n" + incomplete
		}
		return pluginapi.Result{Content: content, Meta: meta}, nil
	}
	slices.SortStableFunc(found, func(a, b match) int {
		if c := b.modTime.Compare(a.modTime); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	var b strings.Builder
	for i, m := range found {
		if i == maxGlobResults {
			fmt.Fprintf(&b, "[… %d more files cut; narrow the pattern or path]\n", len(found)-i+over)
			break
		}
		b.WriteString(quoteName(m.path) + "\n")
	}
	if over > 0 && len(found) <= maxGlobResults {
		fmt.Fprintf(&b, "[… %d more files cut; narrow the pattern or path]\n", over)
	}
	b.WriteString(incomplete)
	return pluginapi.Result{Content: b.String(), Meta: meta}, nil
}
