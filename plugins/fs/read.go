//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/harness-dev/harness/pluginapi"
)

const (
	defaultReadLimit = 2000      // lines a read shows by default
	maxLineBytes     = 2000      // longer lines are cut
	maxReadOutput    = 100_000   // bytes of numbered lines a read returns
	maxTrackedSize   = 16 << 20  // larger files are streamed, and cannot be written or edited
	sniffBytes       = 8000      // what binary detection looks at, as git does
	maxDirEntries    = 500       // entries a read of a directory lists
	maxDirLook       = 10_000    // entries a read of a directory looks at
	maxReadScan      = 256 << 20 // bytes a read scans at most
)

// errScanCap is returned by a scanReader whose budget is spent.
var errScanCap = errors.New("scan budget spent")

// scanReader reads from r while ctx is live and at most budget bytes in
// all: a read of a file made of one endless line is cancellable (ctx is
// checked at every read of the underlying file, not only between lines)
// and ends.
type scanReader struct {
	ctx     context.Context
	r       io.Reader
	budget  int64
	scanned int64
	err     error // the last error Read returned
}

func (s *scanReader) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return 0, err
	}
	if s.scanned >= s.budget {
		s.err = errScanCap
		return 0, errScanCap
	}
	if rest := s.budget - s.scanned; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := s.r.Read(p)
	s.scanned += int64(n)
	s.err = err
	return n, err
}

type readArgs struct {
	FilePath string `json:"file_path"`
	Offset   *int   `json:"offset"`
	Limit    *int   `json:"limit"`
}

func (s *server) read(ctx context.Context, call *pluginapi.Call, a readArgs) (pluginapi.Result, error) {
	offset, limit := 1, defaultReadLimit
	if a.Offset != nil {
		if *a.Offset < 0 {
			return pluginapi.ErrorResult("offset must be a line number (1 is the first line), got %d", *a.Offset), nil
		}
		offset = max(*a.Offset, 1)
	}
	if a.Limit != nil {
		if *a.Limit < 1 {
			return pluginapi.ErrorResult("limit must be at least 1, got %d", *a.Limit), nil
		}
		limit = *a.Limit
	}
	t, err := s.resolve(ctx, call, "read", a.FilePath)
	if err != nil {
		if ctx.Err() != nil {
			return pluginapi.Result{}, ctx.Err()
		}
		return pluginapi.ErrorResult("%v", err), nil
	}
	defer t.close()
	fi, err := s.files.Stat(ctx, t)
	switch {
	case ctx.Err() != nil:
		return pluginapi.Result{}, ctx.Err()
	case errors.Is(err, fs.ErrNotExist):
		return pluginapi.ErrorResult("%s", missingMessage(ctx, t)), nil
	case err != nil:
		return pluginapi.ErrorResult("read %s: %v", t, unwrapPathError(err)), nil
	case fi.IsDir():
		return listDir(ctx, t, fi)
	case !fi.Mode().IsRegular():
		return pluginapi.ErrorResult("%s is %s, not a regular file; read only reads files", t, fileKind(fi.Mode())), nil
	}
	f, err := s.filesFor(call).Open(ctx, t, fi)
	if err != nil {
		return pluginapi.ErrorResult("read %s: %v", t, unwrapPathError(err)), nil
	}
	defer f.Close()

	sr := &scanReader{ctx: ctx, r: f, budget: s.readScan}
	var r io.Reader = sr
	total := -1      // lines in the file, when known
	notUTF8 := false // the file (kept in memory) is not UTF-8
	if fi.Size() <= maxTrackedSize {
		data, err := io.ReadAll(io.LimitReader(sr, maxTrackedSize+1))
		if ctx.Err() != nil {
			return pluginapi.Result{}, ctx.Err()
		}
		if err != nil && !errors.Is(err, errScanCap) {
			return pluginapi.ErrorResult("read %s: %v", t, unwrapPathError(err)), nil
		}
		if err == nil && len(data) <= maxTrackedSize {
			s.reads.record(call.SessionID, t.Real, recordOf(data, fi.ModTime()))
			total = countLines(data)
			notUTF8 = !utf8.Valid(data)
			r = bytes.NewReader(data)
		} else { // it grew since Stat
			r = io.MultiReader(bytes.NewReader(data), sr)
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(sniffBytes)
	switch {
	case ctx.Err() != nil: // not an empty file: a cancelled read
		return pluginapi.Result{}, ctx.Err()
	case err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errScanCap):
		return pluginapi.ErrorResult("read %s: %v", t, unwrapPathError(err)), nil
	}
	if isBinary(head) {
		return pluginapi.Result{Content: fmt.Sprintf("%s is a binary file (%s, %s); not shown.",
			t, http.DetectContentType(head), sizeString(fi.Size()))}, nil
	}
	if len(head) == 0 {
		return pluginapi.Result{Content: fmt.Sprintf("%s is empty (0 bytes).", t)}, nil
	}
	page, err := numberLines(ctx, br, offset, limit, maxReadOutput)
	scanCapped := errors.Is(err, errScanCap)
	if err != nil && !scanCapped {
		return pluginapi.Result{}, fmt.Errorf("read %s: %w", t, err)
	}
	if scanCapped && page.first == 0 {
		return pluginapi.ErrorResult("read %s: stopped after scanning %s (the most one read scans), %d lines in, before reaching offset %d; search the file with grep instead",
			t, sizeString(s.readScan), page.last, offset), nil
	}
	if total < 0 && !page.more {
		total = page.last
	}
	if page.first == 0 {
		n := page.last
		return pluginapi.ErrorResult("%s has %d lines; offset %d is past the end", t, n, offset), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, lines %d–%d", t, page.first, page.last)
	if total >= 0 {
		fmt.Fprintf(&b, " of %d", total)
	}
	b.WriteString(":\n")
	if notUTF8 {
		b.WriteString("[the file is not valid UTF-8: its invalid bytes are shown as \uFFFD; edit keeps them as they are (old_string cannot match them)]\n")
	}
	b.WriteString(page.text)
	switch {
	case scanCapped:
		fmt.Fprintf(&b, "[read stopped after scanning %s (the most one read scans); continue with offset=%d]\n", sizeString(s.readScan), page.last+1)
	case page.capped:
		fmt.Fprintf(&b, "[output capped at %d bytes; continue with offset=%d]\n", maxReadOutput, page.last+1)
	case page.more:
		fmt.Fprintf(&b, "[more lines follow; continue with offset=%d]\n", page.last+1)
	}
	meta := pluginapi.Meta{Title: readTitle(call, t.Real, page.first, page.last),
		Locations: []pluginapi.Location{{Path: t.Real, Line: page.first}}}
	return pluginapi.Result{Content: b.String(), Meta: meta}, nil
}

// page is a run of numbered lines.
type page struct {
	text   string
	first  int  // the number of the first line shown; 0 when none
	last   int  // the number of the last line shown (of the last line read, when none)
	more   bool // lines follow the last one shown
	capped bool // stopped by the output cap rather than the limit
}

// numberLines formats lines offset..offset+limit-1 of r as `cat -n` does:
// the line number right-aligned in 6 columns, a tab, the line. A line's
// "\r\n" or "\n" ending is dropped; longer lines than maxLineBytes are
// cut with a marker; invalid UTF-8 becomes U+FFFD. It stops before the
// text passes maxOut bytes (always showing at least one line).
func numberLines(ctx context.Context, r *bufio.Reader, offset, limit, maxOut int) (page, error) {
	var p page
	var b strings.Builder
	n := 0
	done := func(err error) (page, error) {
		if p.first == 0 {
			p.last = n
		}
		p.text = b.String()
		return p, err
	}
	for {
		if n%4096 == 0 && ctx.Err() != nil {
			return done(ctx.Err())
		}
		line, cut, err := nextLine(r)
		if err == io.EOF {
			return done(nil)
		}
		if err != nil && line == nil {
			return done(err)
		}
		n++
		if n < offset {
			if err != nil {
				return done(err)
			}
			continue
		}
		if n >= offset+limit {
			p.more = true
			break
		}
		entry := fmt.Sprintf("%6d\t%s", n, strings.ToValidUTF8(string(line), "\uFFFD"))
		switch {
		case err != nil: // the scan stopped inside this line
			entry += " … [line cut: the read stopped scanning here]"
		case cut > 0:
			entry += fmt.Sprintf(" … [line cut: %d more bytes]", cut)
		}
		entry += "\n"
		if p.first != 0 && b.Len()+len(entry) > maxOut {
			p.more, p.capped = true, true
			break
		}
		if p.first == 0 {
			p.first = n
		}
		p.last = n
		b.WriteString(entry)
		if err != nil {
			return done(err)
		}
	}
	p.text = b.String()
	return p, nil
}

// nextLine reads one line without its ending, keeping at most
// maxLineBytes of it (cut on a UTF-8 boundary) and counting the bytes it
// dropped. io.EOF means no line remains. An error inside a line (the
// scan budget spent, say) comes with the part of the line read so far.
func nextLine(r *bufio.Reader) (line []byte, cut int64, err error) {
	var buf []byte
	var total int64
	var tail [2]byte // the line's last two bytes, for its ending
	var stop error   // what ended the line before its end
	for {
		chunk, err := r.ReadSlice('\n')
		total += int64(len(chunk))
		if keep := min(len(chunk), maxLineBytes+2-len(buf)); keep > 0 {
			buf = append(buf, chunk[:keep]...)
		}
		for _, c := range chunk[max(0, len(chunk)-2):] {
			tail[0], tail[1] = tail[1], c
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && total == 0:
			return nil, 0, io.EOF
		case err != nil && err != io.EOF && total == 0:
			return nil, 0, err
		case err != nil && err != io.EOF:
			stop = err
		}
		break
	}
	content := total
	if tail[1] == '\n' {
		content--
		if tail[0] == '\r' && total >= 2 {
			content--
		}
	}
	if int64(len(buf)) > content {
		buf = buf[:content]
	}
	if len(buf) > maxLineBytes {
		end := maxLineBytes
		for end > 0 && !utf8.RuneStart(buf[end]) {
			end--
		}
		buf = buf[:end]
	}
	return buf, content - int64(len(buf)), stop
}

// countLines counts lines as nextLine reads them: a last line without a
// newline counts.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// isBinary reports whether a file starting with head is binary: a NUL
// byte in it, as git and grep decide.
func isBinary(head []byte) bool {
	return bytes.IndexByte(head, 0) >= 0
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// listDir answers a read of a directory with its entries: it looks at
// maxDirLook of them at most (a folder of millions answers at once),
// sorts those and lists the first maxDirEntries, saying what it cut. The
// folder listed is the one fi describes.
func listDir(ctx context.Context, t target, fi fs.FileInfo) (pluginapi.Result, error) {
	f, _, err := openDisk(t, fi)
	if err == nil {
		f, err = plainDir(f)
	}
	if err != nil {
		return pluginapi.ErrorResult("list %s: %v", t, unwrapPathError(err)), nil
	}
	d := f
	defer d.Close()
	var entries []fs.DirEntry
	more := false // entries past the first maxDirLook
	for len(entries) < maxDirLook {
		if err := ctx.Err(); err != nil {
			return pluginapi.Result{}, err
		}
		batch, err := d.ReadDir(min(1000, maxDirLook-len(entries)))
		entries = append(entries, batch...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return pluginapi.ErrorResult("list %s: %v", t, unwrapPathError(err)), nil
		}
	}
	if len(entries) == maxDirLook {
		next, _ := d.ReadDir(1)
		more = len(next) > 0
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := quoteName(e.Name())
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	if more {
		fmt.Fprintf(&b, "%s is a directory with more than %d entries; read looked at the first %d only (read reads files; use glob or grep to search it):\n", t, maxDirLook, maxDirLook)
	} else {
		fmt.Fprintf(&b, "%s is a directory with %d entries (read reads files; use glob or grep to search it):\n", t, len(names))
	}
	for i, n := range names {
		if i == maxDirEntries {
			if more {
				fmt.Fprintf(&b, "[… listing cut: %d entries shown of the %d looked at, and more not looked at]\n", i, len(names))
			} else {
				fmt.Fprintf(&b, "[… %d more entries cut]\n", len(names)-i)
			}
			break
		}
		b.WriteString(n + "\n")
	}
	return pluginapi.Result{Content: b.String()}, nil
}
