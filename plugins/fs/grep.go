//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/fsroot"
)

const (
	defaultHeadLimit = 250       // entries grep shows by default
	maxGrepOutput    = 30_000    // bytes of a grep result
	maxGrepLineScan  = 1 << 20   // bytes of a line grep matches; the rest is skipped, and noted
	maxGrepFileScan  = 32 << 20  // bytes of a file grep searches; the rest is skipped, and noted
	maxGrepScan      = 512 << 20 // bytes one grep scans; then it stops, and says so
	maxGrepLine      = 500       // bytes of a line grep shows
	maxContext       = 50        // lines of context at most
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
	block   []string // content mode: the output lines kept
	dropped int      // content mode: output lines past what can be shown, counted only
}

// grepBudgets bound what one grep reads: bytes of a line matched, of a
// file searched, of the whole call scanned.
type grepBudgets struct {
	line, file, call int64
}

var defaultGrepBudgets = grepBudgets{line: maxGrepLineScan, file: maxGrepFileScan, call: maxGrepScan}

// grepScan is one grep's reading: what is left of its budget and what the
// budgets cut, for the one line that says the results are incomplete.
type grepScan struct {
	b         grepBudgets
	left      int64  // bytes the call may still scan
	kept      int    // content lines kept in all hits
	searched  int    // files searched
	long      int    // lines longer than b.line, matched on their start only
	firstLong string // the first of them, "path:line"
	big       int    // files larger than b.file, searched in their start only
	firstBig  string
	stopped   bool // the call's budget ran out
	keep      int  // matching files kept, to sort and list
	overFiles int  // matching files past keep, counted only
	overLines int  // their matching lines (content mode: their output lines)
	walk      walkStats
	mode      string
}

// incomplete is the line saying what the budgets cut, or "".
func (g *grepScan) incomplete() string {
	var parts []string
	if g.long > 0 {
		parts = append(parts, fmt.Sprintf("%d %s longer than %s matched on their first %s only (first: %s)",
			g.long, plural(g.long, "line", "lines"), sizeString(g.b.line), sizeString(g.b.line), g.firstLong))
	}
	if g.big > 0 {
		parts = append(parts, fmt.Sprintf("%d %s larger than %s searched in their first %s only (first: %s)",
			g.big, plural(g.big, "file", "files"), sizeString(g.b.file), sizeString(g.b.file), g.firstBig))
	}
	if g.stopped {
		parts = append(parts, fmt.Sprintf("the search stopped after scanning %s (the most one grep scans), %d files in; files after those were not searched",
			sizeString(g.b.call), g.searched))
	}
	if g.walk.cut {
		parts = append(parts, fmt.Sprintf("the walk stopped after reading %d entries (the most one grep reads); files past those were not searched", g.walk.visited))
	}
	if g.overFiles > 0 {
		p := fmt.Sprintf("%d more matching %s after the first %d were counted only, not listed", g.overFiles, plural(g.overFiles, "file", "files"), g.keep)
		if g.mode == modeFiles {
			p += fmt.Sprintf(": the files listed are the newest of those %d, not of all", g.keep)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return "[results incomplete: " + strings.Join(parts, "; ") + "; narrow the path or glob]\n"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
	defer t.close()
	fi, err := s.files.Stat(ctx, t)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pluginapi.ErrorResult("%s", missingMessage(ctx, t)), nil
	case err != nil:
		return pluginapi.ErrorResult("search %s: %v", t, unwrapPathError(err)), nil
	}
	var hits []grepHit
	g := &grepScan{b: s.grepBudgets, left: s.grepBudgets.call, keep: s.walk.keep, mode: o.mode}
	search := func(f *os.File, fi fs.FileInfo, p string) error {
		h, ok, err := grepFile(ctx, f, fi, p, o, g)
		if err != nil {
			return err
		}
		if ok && len(hits) >= g.keep {
			g.overFiles++
			if o.mode == modeContent {
				g.overLines += len(h.block) + h.dropped
			} else {
				g.overLines += h.count
			}
		} else if ok {
			hits = append(hits, h)
		}
		if g.stopped {
			return fs.SkipAll
		}
		return nil
	}
	if fi.Mode().IsRegular() {
		f, ofi, err := openDisk(t, fi)
		if err != nil {
			return pluginapi.ErrorResult("search %s: %v", t, unwrapPathError(err)), nil
		}
		err = search(f, ofi, t.Real)
		f.Close()
		if err != nil && err != fs.SkipAll {
			return pluginapi.Result{}, err
		}
	} else if fi.IsDir() {
		top, err := openDir(t, fi)
		if err != nil {
			return pluginapi.ErrorResult("search %s: %v", t, unwrapPathError(err)), nil
		}
		defer top.Close()
		g.walk, err = newTree(top, t.Real).walk(ctx, s.walk.entries, func(dir *os.Root, p, rel string, d fs.DirEntry) error {
			if !d.Type().IsRegular() || (o.glob != "" && !globMatch(o.glob, rel)) {
				return nil
			}
			f, fi, err := fsroot.Open(dir, d.Name(), nil)
			if err != nil {
				return nil // gone, unreadable, or swapped for a symlink: not searched
			}
			defer f.Close()
			return search(f, fi, p)
		})
		if ctx.Err() != nil {
			return pluginapi.Result{}, ctx.Err()
		}
		if err != nil {
			return pluginapi.ErrorResult("search %s: %v", t, err), nil
		}
	} else {
		return pluginapi.ErrorResult("%s is %s; grep searches files and folders", t, fileKind(fi.Mode())), nil
	}
	meta := pluginapi.Meta{Title: fmt.Sprintf("Search %s in %s", quoted(a.Pattern), display(call, t.Path))}
	if len(hits) == 0 {
		return pluginapi.Result{Content: fmt.Sprintf("No matches for %s in %s (%d files searched).\n", quoted(a.Pattern), t, g.searched) + g.incomplete(), Meta: meta}, nil
	}
	for i, h := range hits {
		if i == maxMetaLocations {
			break
		}
		meta.Locations = append(meta.Locations, pluginapi.Location{Path: h.path, Line: h.first})
	}
	return pluginapi.Result{Content: formatGrep(hits, o, g) + g.incomplete(), Meta: meta}, nil
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

// grepFile searches the lines of the open file f (whose fstat is fi, and
// whose path is p) as it streams them, within g's budgets; content mode
// also formats them, with context, as grep does: "path:N:line" for a
// match, "path-N-line" for context, "--" between groups. A file that is
// not regular, or binary, is skipped (ok false, no error); the error is
// the context's.
func grepFile(ctx context.Context, f *os.File, fi fs.FileInfo, p string, o grepOpts, g *grepScan) (h grepHit, ok bool, err error) {
	if !fi.Mode().IsRegular() {
		return h, false, nil
	}
	h.modTime = fi.ModTime()
	if g.left <= 0 {
		g.stopped = true
		return h, false, nil
	}
	sr := &scanReader{ctx: ctx, r: io.LimitReader(f, g.b.file), budget: g.left}
	defer func() { g.left -= sr.scanned }()
	br := bufio.NewReaderSize(sr, 64<<10)
	head, _ := br.Peek(sniffBytes)
	if ctx.Err() != nil {
		return h, false, ctx.Err()
	}
	if isBinary(head) {
		return h, false, nil
	}
	g.searched++
	h.path = p
	qp := quoteName(p) // as results name it

	type ctxLine struct {
		n    int
		text string
	}
	var before []ctxLine // the last o.before lines not shown, for context
	afterLeft, lastShown := 0, 0
	show := func(n int, sep, text string) {
		if g.kept > min(o.limit, maxGrepOutput/2) { // past what can be shown (a line takes 2 bytes at least): counted only
			h.dropped++
			return
		}
		if lastShown > 0 && n > lastShown+1 {
			h.block = append(h.block, "--")
		}
		if o.lineNums {
			h.block = append(h.block, fmt.Sprintf("%s%s%d%s%s", qp, sep, n, sep, text))
		} else {
			h.block = append(h.block, qp+sep+text)
		}
		g.kept++
		lastShown = n
	}
	content := o.mode == modeContent
	line := make([]byte, 0, 4096)
	for n := 1; ; n++ {
		line = line[:0]
		var total int64 // the line's length, ending included
		var end error
		for {
			chunk, err := br.ReadSlice('\n')
			total += int64(len(chunk))
			if keep := min(int64(len(chunk)), g.b.line+2-int64(len(line))); keep > 0 {
				line = append(line, chunk[:keep]...)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			end = err
			break
		}
		if total == 0 {
			break
		}
		if end == nil { // the line ends with "\n"
			total--
			line = line[:min(int64(len(line)), total)]
			if len(line) > 0 && int64(len(line)) == total && line[len(line)-1] == '\r' {
				line, total = line[:len(line)-1], total-1
			}
		}
		if int64(len(line)) > g.b.line {
			line = line[:g.b.line]
		}
		if total > g.b.line {
			if g.long == 0 {
				g.firstLong = fmt.Sprintf("%s:%d", qp, n)
			}
			g.long++
		}
		if o.re.Match(line) {
			h.count++
			if h.first == 0 {
				h.first = n
			}
			if !content && o.mode == modeFiles {
				break // one match is all files_with_matches needs
			}
			if content {
				for _, c := range before {
					show(c.n, "-", c.text)
				}
				before = before[:0]
				show(n, ":", grepLine(line, total))
				afterLeft = o.after
			}
		} else if content {
			switch {
			case afterLeft > 0:
				show(n, "-", grepLine(line, total))
				afterLeft--
			case o.before > 0:
				if len(before) == o.before {
					before = append(before[:0], before[1:]...)
				}
				before = append(before, ctxLine{n, grepLine(line, total)})
			}
		}
		if end != nil {
			break
		}
	}
	switch {
	case ctx.Err() != nil:
		return h, false, ctx.Err()
	case errors.Is(sr.err, errScanCap):
		g.stopped = true
	case fi.Size() > g.b.file && !(o.mode == modeFiles && h.count > 0):
		if g.big == 0 {
			g.firstBig = qp
		}
		g.big++
	}
	return h, h.count > 0, nil
}

// grepLine is a line as grep shows it: at most maxGrepLine bytes, cut on
// a UTF-8 boundary with the count of what was cut, invalid UTF-8 replaced.
func grepLine(line []byte, total int64) string {
	l := line
	if len(l) > maxGrepLine {
		l = l[:maxGrepLine]
	}
	s := strings.ToValidUTF8(string(l), "\uFFFD")
	if total > int64(len(l)) {
		s = strings.ToValidUTF8(string(l), "") + fmt.Sprintf(" … [%d more bytes]", total-int64(len(l)))
	}
	return s
}

// formatGrep writes the hits in the output mode, at most o.limit entries
// and maxGrepOutput bytes, ending with what was cut (counting what g
// counted past the hits kept).
func formatGrep(hits []grepHit, o grepOpts, g *grepScan) string {
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
			entries = append(entries, quoteName(h.path))
		}
		what = "files"
	case modeCount:
		for _, h := range hits {
			entries = append(entries, fmt.Sprintf("%s:%d", quoteName(h.path), h.count))
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
	shown, sep, capped := 0, false, false
	for _, e := range entries {
		if e == "--" { // between groups, written before the next line shown
			sep = shown > 0
			continue
		}
		if shown == o.limit {
			break
		}
		if b.Len()+len(e)+4 > maxGrepOutput {
			capped = true
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
		fmt.Fprintf(&b, "%d matching lines in %d files.\n", total+g.overLines, len(hits)+g.overFiles)
	}
	cut := -shown
	for _, e := range entries {
		if e != "--" {
			cut++
		}
	}
	if o.mode == modeContent {
		for _, h := range hits {
			cut += h.dropped
		}
		cut += g.overLines
	} else {
		cut += g.overFiles
	}
	if cut > 0 {
		reason := fmt.Sprintf("head_limit %d", o.limit)
		switch {
		case capped:
			reason = fmt.Sprintf("output capped at %d bytes", maxGrepOutput)
		case shown < o.limit:
			reason = fmt.Sprintf("only the first %d matching files kept", g.keep)
		}
		fmt.Fprintf(&b, "[… %d more %s cut (%s); narrow the pattern, path or glob, or raise head_limit]\n", cut, what, reason)
	}
	return b.String()
}

// quoted quotes s for a result.
func quoted(s string) string {
	return fmt.Sprintf("%q", s)
}
