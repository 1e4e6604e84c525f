//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/harness-dev/harness/pluginapi"
)

const (
	defaultHeadLimit = 250      // entries grep shows by default
	maxGrepOutput    = 30_000   // bytes of a grep result
	maxGrepFileSize  = 32 << 20 // larger files are not searched
	maxGrepLine      = 500      // bytes of a line grep shows
	maxContext       = 50       // lines of context at most
)

// Output modes of grep.
const (
	modeContent = "content"
	modeFiles   = "files_with_matches"
	modeCount   = "count"
)

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	OutputMode string `json:"output_mode"`
	IgnoreCase bool   `json:"-i"`
	LineNums   *bool  `json:"-n"`
	After      *int   `json:"-A"`
	Before     *int   `json:"-B"`
	Around     *int   `json:"-C"`
	Context    *int   `json:"context"`
	HeadLimit  *int   `json:"head_limit"`
}

// grepOpts are grep's arguments, checked.
type grepOpts struct {
	re            *regexp.Regexp
	glob          string // "" for every file
	mode          string
	lineNums      bool
	before, after int
	limit         int
}

func (a grepArgs) opts() (grepOpts, error) {
	o := grepOpts{mode: a.OutputMode, lineNums: true, limit: defaultHeadLimit, glob: a.Glob}
	if o.mode == "" {
		o.mode = modeFiles
	}
	if a.Pattern == "" {
		return o, errors.New("pattern is empty")
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return o, fmt.Errorf("pattern is not a valid RE2 regular expression: %v", unwrapRegexpError(err))
	}
	o.re = re
	if o.glob != "" && !doublestar.ValidatePattern(o.glob) {
		return o, fmt.Errorf("glob %q is not a valid pattern", o.glob)
	}
	if a.LineNums != nil {
		o.lineNums = *a.LineNums
	}
	for _, c := range []struct {
		name string
		v    *int
		into []*int
	}{
		{"context", a.Context, []*int{&o.before, &o.after}},
		{"-C", a.Around, []*int{&o.before, &o.after}},
		{"-B", a.Before, []*int{&o.before}},
		{"-A", a.After, []*int{&o.after}},
	} {
		if c.v == nil {
			continue
		}
		if *c.v < 0 {
			return o, fmt.Errorf("%s must be 0 or more, got %d", c.name, *c.v)
		}
		for _, p := range c.into {
			*p = min(*c.v, maxContext)
		}
	}
	if a.HeadLimit != nil {
		if *a.HeadLimit < 1 {
			return o, fmt.Errorf("head_limit must be at least 1, got %d", *a.HeadLimit)
		}
		o.limit = *a.HeadLimit
	}
	return o, nil
}

// unwrapRegexpError drops the "error parsing regexp: " the message
// already says.
func unwrapRegexpError(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// grepHit is one file with matches.
type grepHit struct {
	path    string
	modTime time.Time
	count   int      // matching lines
	first   int      // the first matching line, 1-based
	block   []string // content mode: the output lines
}

func (s *server) grep(ctx context.Context, call *pluginapi.Call, a grepArgs) (pluginapi.Result, error) {
	o, err := a.opts()
	if err != nil {
		return pluginapi.ErrorResult("%v", err), nil
	}
	where := a.Path
	if where == "" {
		where = "."
	}
	t, err := s.resolve(ctx, call, "search", where)
	if err != nil {
		return pluginapi.ErrorResult("%v", err), nil
	}
	fi, err := os.Stat(t.Real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pluginapi.ErrorResult("%s", missingMessage(t.Path)), nil
	case err != nil:
		return pluginapi.ErrorResult("search %s: %v", t, unwrapPathError(err)), nil
	}
	var hits []grepHit
	searched := 0
	search := func(p string) {
		data := readSearchable(p, maxGrepFileSize)
		if data == nil {
			return
		}
		searched++
		if h, ok := grepFile(p, data, o); ok {
			if fi, err := os.Stat(p); err == nil {
				h.modTime = fi.ModTime()
			}
			hits = append(hits, h)
		}
	}
	if fi.Mode().IsRegular() {
		search(t.Real)
	} else if fi.IsDir() {
		err := newTree(t.Real).walk(ctx, func(p, rel string, d fs.DirEntry) error {
			if !d.Type().IsRegular() || (o.glob != "" && !globMatch(o.glob, rel)) {
				return nil
			}
			search(p)
			return nil
		})
		if err != nil {
			return pluginapi.ErrorResult("search %s: %v", t, err), nil
		}
	} else {
		return pluginapi.ErrorResult("%s is %s; grep searches files and folders", t, fileKind(fi.Mode())), nil
	}
	meta := pluginapi.Meta{Title: fmt.Sprintf("Search %s in %s", quoted(a.Pattern), display(call, t.Path))}
	if len(hits) == 0 {
		return pluginapi.Result{Content: fmt.Sprintf("No matches for %s in %s (%d files searched).", quoted(a.Pattern), t, searched), Meta: meta}, nil
	}
	for i, h := range hits {
		if i == maxMetaLocations {
			break
		}
		meta.Locations = append(meta.Locations, pluginapi.Location{Path: h.path, Line: h.first})
	}
	return pluginapi.Result{Content: formatGrep(hits, o), Meta: meta}, nil
}

// globMatch matches a file's path below the search root against a glob:
// a pattern without "/" matches the file's name, in any folder.
func globMatch(glob, rel string) bool {
	if !strings.Contains(glob, "/") {
		rel = path.Base(rel)
	}
	ok, _ := doublestar.Match(glob, rel)
	return ok
}

// grepFile searches one file's lines; content mode also formats them,
// with context, as grep does: "path:N:line" for a match, "path-N-line"
// for context, "--" between groups.
func grepFile(p string, data []byte, o grepOpts) (grepHit, bool) {
	lines := splitLines(data)
	h := grepHit{path: p}
	var matched []int
	for i, l := range lines {
		if o.re.Match(l) {
			matched = append(matched, i)
		}
	}
	h.count = len(matched)
	if h.count == 0 {
		return h, false
	}
	h.first = matched[0] + 1
	if o.mode != modeContent {
		return h, true
	}
	isMatch := make(map[int]bool, len(matched))
	for _, i := range matched {
		isMatch[i] = true
	}
	last := -2 // the last line index written
	for _, i := range matched {
		from, to := max(0, i-o.before), min(len(lines)-1, i+o.after)
		from = max(from, last+1)
		if last >= 0 && from > last+1 {
			h.block = append(h.block, "--")
		}
		for j := from; j <= to; j++ {
			sep := "-"
			if isMatch[j] {
				sep = ":"
			}
			l := string(lines[j])
			if len(l) > maxGrepLine {
				l = strings.ToValidUTF8(l[:maxGrepLine], "") + fmt.Sprintf(" … [%d more bytes]", len(l)-maxGrepLine)
			}
			l = strings.ToValidUTF8(l, "\uFFFD")
			if o.lineNums {
				h.block = append(h.block, fmt.Sprintf("%s%s%d%s%s", p, sep, j+1, sep, l))
			} else {
				h.block = append(h.block, p+sep+l)
			}
		}
		last = max(last, to)
	}
	return h, true
}

// formatGrep writes the hits in the output mode, at most o.limit entries
// and maxGrepOutput bytes, ending with what was cut.
func formatGrep(hits []grepHit, o grepOpts) string {
	var entries []string
	var what string
	total := 0
	for _, h := range hits {
		total += h.count
	}
	switch o.mode {
	case modeFiles:
		slices.SortStableFunc(hits, func(a, b grepHit) int { return b.modTime.Compare(a.modTime) })
		for _, h := range hits {
			entries = append(entries, h.path)
		}
		what = "files"
	case modeCount:
		for _, h := range hits {
			entries = append(entries, fmt.Sprintf("%s:%d", h.path, h.count))
		}
		what = "files"
	default:
		for i, h := range hits {
			if i > 0 {
				entries = append(entries, "--")
			}
			entries = append(entries, h.block...)
		}
		what = "lines"
	}
	var b strings.Builder
	shown, sep := 0, false
	for _, e := range entries {
		if e == "--" { // between groups, written before the next line shown
			sep = shown > 0
			continue
		}
		if shown == o.limit || b.Len()+len(e)+4 > maxGrepOutput {
			break
		}
		if sep {
			b.WriteString("--\n")
			sep = false
		}
		b.WriteString(e + "\n")
		shown++
	}
	if o.mode == modeCount {
		fmt.Fprintf(&b, "%d matching lines in %d files.\n", total, len(hits))
	}
	cut := -shown
	for _, e := range entries {
		if e != "--" {
			cut++
		}
	}
	if cut > 0 {
		reason := fmt.Sprintf("head_limit %d", o.limit)
		if shown < o.limit {
			reason = fmt.Sprintf("output capped at %d bytes", maxGrepOutput)
		}
		fmt.Fprintf(&b, "[… %d more %s cut (%s); narrow the pattern, path or glob, or raise head_limit]\n", cut, what, reason)
	}
	return b.String()
}

// quoted quotes s for a result.
func quoted(s string) string {
	return fmt.Sprintf("%q", s)
}
