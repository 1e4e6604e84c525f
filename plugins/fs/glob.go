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
	fi, err := os.Stat(t.Real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pluginapi.ErrorResult("%s", missingMessage(t.Path)), nil
	case err != nil:
		return pluginapi.ErrorResult("glob %s: %v", t, unwrapPathError(err)), nil
	case !fi.IsDir():
		return pluginapi.ErrorResult("%s is not a directory; path names the folder to search in", t), nil
	}
	type match struct {
		path    string
		modTime time.Time
	}
	var found []match
	err = newTree(t.Real).walk(ctx, func(p, rel string, d fs.DirEntry) error {
		if ok, _ := doublestar.Match(rest, rel); !ok {
			return nil
		}
		fi, err := os.Stat(p) // follows a symlink, once
		if err != nil || fi.IsDir() {
			return nil
		}
		found = append(found, match{filepath.Join(t.Path, rel), fi.ModTime()})
		return nil
	})
	if err != nil {
		return pluginapi.ErrorResult("glob %s: %v", t, err), nil
	}
	meta := pluginapi.Meta{Title: fmt.Sprintf("Find %s in %s", quoted(rest), display(call, t.Path))}
	if len(found) == 0 {
		return pluginapi.Result{Content: fmt.Sprintf("No files match %s in %s.", quoted(rest), t), Meta: meta}, nil
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
			fmt.Fprintf(&b, "[… %d more files cut; narrow the pattern or path]\n", len(found)-i)
			break
		}
		b.WriteString(quoteName(m.path) + "\n")
	}
	return pluginapi.Result{Content: b.String(), Meta: meta}, nil
}
