//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/harness-dev/harness/pluginapi"
)

type writeArgs struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

type editArgs struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// fileChange is what a write or an edit did to one file: the editor's
// diff (ACP diff content: path, oldText, newText) once the protocol
// carries result metadata.
type fileChange struct {
	Path    string // absolute, resolved
	OldText string // "" for a new file
	NewText string
	Created bool
	// Regions are the changed line ranges in NewText (edit only).
	Regions []lineRange
}

// lineRange is an inclusive range of 1-based line numbers.
type lineRange struct{ First, Last int }

func (r lineRange) String() string {
	if r.First == r.Last {
		return fmt.Sprintf("line %d", r.First)
	}
	return fmt.Sprintf("lines %d–%d", r.First, r.Last)
}

// UnifiedDiff is the change as a unified diff, with 3 lines of context.
func (c fileChange) UnifiedDiff() string {
	from := c.Path
	if c.Created {
		from = "/dev/null"
	}
	return udiff.Unified(from, c.Path, c.OldText, c.NewText)
}

// lineCounts counts the lines the change adds and removes.
func (c fileChange) lineCounts() (added, removed int) {
	for _, l := range strings.Split(c.UnifiedDiff(), "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

func (s *server) write(ctx context.Context, call *pluginapi.Call, a writeArgs) (pluginapi.Result, error) {
	ch, err := s.writeFile(ctx, call, a)
	if err != nil {
		return pluginapi.ErrorResult("%v", err), nil
	}
	lines := countLines([]byte(ch.NewText))
	if ch.Created {
		return pluginapi.Result{Content: fmt.Sprintf("Created %s (%d lines, %s).", quoteName(ch.Path), lines, sizeString(int64(len(ch.NewText)))),
			Meta: changeMeta(call, "Create", ch)}, nil
	}
	meta := changeMeta(call, "Write", ch)
	if ch.OldText == ch.NewText {
		return pluginapi.Result{Content: fmt.Sprintf("Wrote %s: no change (the same %d lines).", quoteName(ch.Path), lines), Meta: meta}, nil
	}
	added, removed := ch.lineCounts()
	return pluginapi.Result{Content: fmt.Sprintf("Wrote %s: %d lines (+%d −%d).", quoteName(ch.Path), lines, added, removed), Meta: meta}, nil
}

// writeFile checks and makes the change of a write; its errors are for
// the model.
func (s *server) writeFile(ctx context.Context, call *pluginapi.Call, a writeArgs) (fileChange, error) {
	// Refused before anything else, the user asked about an outside path.
	if err := tooLarge("write", quoteName(a.FilePath), int64(len(a.Content))); err != nil {
		return fileChange{}, err
	}
	t, err := s.resolve(ctx, call, "write", a.FilePath)
	if err != nil {
		return fileChange{}, err
	}
	defer t.close()
	files := s.filesFor(call)
	old, exists, err := s.current(ctx, files, call.SessionID, t, "write")
	if err != nil {
		return fileChange{}, err
	}
	ch := fileChange{Path: t.Real, OldText: old, NewText: a.Content, Created: !exists}
	if err := s.commit(ctx, files, call.SessionID, t, ch); err != nil {
		return fileChange{}, err
	}
	return ch, nil
}

func (s *server) edit(ctx context.Context, call *pluginapi.Call, a editArgs) (pluginapi.Result, error) {
	ch, n, err := s.editFile(ctx, call, a)
	if err != nil {
		return pluginapi.ErrorResult("%v", err), nil
	}
	var where []string
	for i, r := range ch.Regions {
		if i == 5 {
			where = append(where, fmt.Sprintf("… (%d more)", len(ch.Regions)-i))
			break
		}
		where = append(where, r.String())
	}
	noun := "replacement"
	if n != 1 {
		noun += "s"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Edited %s: %d %s, %s.\n", quoteName(ch.Path), n, noun, strings.Join(where, ", "))
	b.WriteString(snippet(ch.NewText, ch.Regions, 3, 3))
	return pluginapi.Result{Content: b.String(), Meta: changeMeta(call, "Edit", ch)}, nil
}

// editFile checks and makes the change of an edit, returning it and the
// number of replacements; its errors are for the model.
func (s *server) editFile(ctx context.Context, call *pluginapi.Call, a editArgs) (fileChange, int, error) {
	switch {
	case a.OldString == "":
		return fileChange{}, 0, errors.New("old_string is empty; give the exact text to replace (to create a file, use write)")
	case a.OldString == a.NewString:
		return fileChange{}, 0, errors.New("old_string and new_string are the same; there is nothing to change")
	}
	t, err := s.resolve(ctx, call, "edit", a.FilePath)
	if err != nil {
		return fileChange{}, 0, err
	}
	defer t.close()
	files := s.filesFor(call)
	old, exists, err := s.current(ctx, files, call.SessionID, t, "edit")
	if err != nil {
		return fileChange{}, 0, err
	}
	if !exists {
		return fileChange{}, 0, errors.New(missingMessage(ctx, t))
	}
	ch, n, err := replace(t, old, a)
	if err != nil {
		return fileChange{}, 0, err
	}
	if err := s.commit(ctx, files, call.SessionID, t, ch); err != nil {
		return fileChange{}, 0, err
	}
	return ch, n, nil
}

// replace makes the change of edit a to the text old of the file t,
// without writing it: the change and the number of replacements, or an
// error for the model.
func replace(t target, old string, a editArgs) (fileChange, int, error) {
	if a.OldString == "" {
		return fileChange{}, 0, errors.New("old_string is empty; give the exact text to replace (to create a file, use write)")
	}
	if isBinary([]byte(old[:min(len(old), sniffBytes)])) {
		return fileChange{}, 0, fmt.Errorf("%s is a binary file; edit changes text files", t)
	}
	from, to := a.OldString, a.NewString
	n := strings.Count(old, from)
	if n == 0 && strings.Contains(old, "\r\n") && strings.Contains(from, "\n") && !strings.Contains(from, "\r") {
		// The model wrote "\n" in a file with CRLF line endings.
		from = strings.ReplaceAll(from, "\n", "\r\n")
		to = strings.ReplaceAll(strings.ReplaceAll(to, "\r\n", "\n"), "\n", "\r\n")
		n = strings.Count(old, from)
	}
	switch {
	case n == 0 && strings.ContainsRune(a.OldString, utf8.RuneError) && !utf8.ValidString(old):
		return fileChange{}, 0, fmt.Errorf("old_string was not found in %s: the file is not UTF-8, read shows its other bytes as U+FFFD (\uFFFD), and old_string cannot match them; choose old_string from the text around those bytes (edit keeps them as they are)", t)
	case n == 0:
		return fileChange{}, 0, fmt.Errorf("old_string was not found in %s; read the file again and copy the exact text, whitespace and indentation included", t)
	case n > 1 && !a.ReplaceAll:
		return fileChange{}, 0, fmt.Errorf("old_string matches %d times in %s (%s); add surrounding lines to make it unique, or set replace_all to replace every one",
			n, t, strings.Join(matchLines(old, from, 10), ", "))
	}
	if !a.ReplaceAll {
		n = 1
	}
	// The size of the result, before building it: a replace_all of a
	// short string by a long one can multiply a file.
	if err := tooLarge("edit", t.String(), int64(len(old))+int64(n)*(int64(len(to))-int64(len(from)))); err != nil {
		return fileChange{}, 0, err
	}
	ch := fileChange{Path: t.Real, OldText: old, NewText: strings.Replace(old, from, to, n)}
	ch.Regions = replacedRegions(old, from, to, n)
	return ch, n, nil
}

// tooLarge refuses, in one line, new contents of size bytes for the file
// named name that write or edit (op) could not handle after: over
// maxTrackedSize, which read reads whole and write and edit change.
func tooLarge(op, name string, size int64) error {
	if size <= maxTrackedSize {
		return nil
	}
	return fmt.Errorf("%s %s: the new contents would be %s (%d bytes), over the %s limit of write and edit; nothing was changed: make a file that large with a command", op, name, sizeString(size), size, sizeString(maxTrackedSize))
}

// current returns the contents of the file t before a write or an edit
// (op), and whether it exists, after checking that the session may
// overwrite it: a regular file, not too large, read by the session as it
// is now (as files has it: the editor's buffer, when the editor serves
// files).
func (s *server) current(ctx context.Context, files Files, session string, t target, op string) (string, bool, error) {
	data, exists, modTime, err := s.loadBytes(ctx, files, t, op)
	if err != nil || !exists {
		return "", exists, err
	}
	if err := s.reads.checkFresh(session, t.Real, data, modTime); err != nil {
		return "", false, err
	}
	return string(data), true, nil
}

// load returns the contents of the file t as a write or an edit (op)
// would change them, without the read-before-write check.
func (s *server) load(ctx context.Context, files Files, t target, op string) (string, bool, error) {
	data, exists, _, err := s.loadBytes(ctx, files, t, op)
	return string(data), exists, err
}

func (s *server) loadBytes(ctx context.Context, files Files, t target, op string) ([]byte, bool, time.Time, error) {
	fi, err := files.Stat(ctx, t)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, time.Time{}, nil
	case err != nil:
		return nil, false, time.Time{}, fmt.Errorf("%s %s: %w", op, t, unwrapPathError(err))
	case fi.IsDir():
		return nil, false, time.Time{}, fmt.Errorf("%s is a directory; %s changes files", t, op)
	case !fi.Mode().IsRegular():
		return nil, false, time.Time{}, fmt.Errorf("%s is %s, not a regular file; %s changes regular files only", t, fileKind(fi.Mode()), op)
	case fi.Size() > maxTrackedSize:
		return nil, false, time.Time{}, fmt.Errorf("%s is %s, over the %s that %s handles", t, sizeString(fi.Size()), sizeString(maxTrackedSize), op)
	}
	f, err := files.Open(ctx, t, fi)
	if err != nil {
		return nil, false, time.Time{}, fmt.Errorf("%s %s: %w", op, t, unwrapPathError(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTrackedSize+1))
	if err != nil {
		return nil, false, time.Time{}, fmt.Errorf("%s %s: %w", op, t, unwrapPathError(err))
	}
	if len(data) > maxTrackedSize {
		return nil, false, time.Time{}, fmt.Errorf("%s is over the %s that %s handles", t, sizeString(maxTrackedSize), op)
	}
	return data, true, fi.ModTime(), nil
}

// commit writes the change to t and remembers its new contents as read by
// the session, so that it may go on editing without reading again.
func (s *server) commit(ctx context.Context, files Files, session string, t target, ch fileChange) error {
	if err := files.WriteFile(ctx, t, []byte(ch.NewText), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", quoteName(ch.Path), unwrapPathError(err))
	}
	t.id = nil // replaced: a new file, by design
	mod := time.Now()
	if fi, err := files.Stat(ctx, t); err == nil {
		mod = fi.ModTime()
	}
	s.reads.record(session, ch.Path, recordOf([]byte(ch.NewText), mod))
	return nil
}

// matchLines names the lines where the first max matches of sub in text
// start ("line 3", …).
func matchLines(text, sub string, max int) []string {
	var out []string
	line, pos := 1, 0
	for len(out) < max {
		i := strings.Index(text[pos:], sub)
		if i < 0 {
			return out
		}
		line += strings.Count(text[pos:pos+i], "\n")
		out = append(out, fmt.Sprintf("line %d", line))
		line += strings.Count(sub, "\n")
		pos += i + len(sub)
	}
	if rest := strings.Count(text[pos:], sub); rest > 0 {
		out = append(out, fmt.Sprintf("%d more", rest))
	}
	return out
}

// replacedRegions is where the first n replacements of from by to in
// text land in the new text, as line ranges.
func replacedRegions(text, from, to string, n int) []lineRange {
	var out []lineRange
	line, pos := 1, 0 // line: the new text's line at old position pos
	span := strings.Count(strings.TrimSuffix(to, "\n"), "\n")
	if to == "" {
		span = 0
	}
	for k := 0; k < n; k++ {
		i := strings.Index(text[pos:], from)
		if i < 0 {
			break
		}
		line += strings.Count(text[pos:pos+i], "\n")
		out = append(out, lineRange{line, line + span})
		line += strings.Count(to, "\n")
		pos += i + len(from)
	}
	return out
}

// snippet shows the regions of text with context lines around them,
// numbered as read shows lines, at most maxRegions regions (merged when
// they touch).
func snippet(text string, regions []lineRange, context, maxRegions int) string {
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1]
	}
	var merged []lineRange
	for _, r := range regions {
		r = lineRange{max(1, r.First-context), min(len(lines), r.Last+context)}
		if k := len(merged) - 1; k >= 0 && r.First <= merged[k].Last+1 {
			merged[k].Last = max(merged[k].Last, r.Last)
			continue
		}
		merged = append(merged, r)
	}
	var b strings.Builder
	for i, r := range merged {
		if i == maxRegions {
			fmt.Fprintf(&b, "[… %d more changed regions not shown]\n", len(merged)-i)
			break
		}
		if i > 0 {
			b.WriteString("  …\n")
		}
		shown := 0
		for n := r.First; n <= r.Last; n++ {
			if shown == 40 {
				fmt.Fprintf(&b, "[… %d more lines]\n", r.Last-n+1)
				break
			}
			l := strings.TrimSuffix(lines[n-1], "\r")
			if len(l) > maxLineBytes {
				l = strings.ToValidUTF8(l[:maxLineBytes], "") + " …"
			}
			l = strings.ToValidUTF8(l, "\uFFFD")
			fmt.Fprintf(&b, "%6d\t%s\n", n, l)
			shown++
		}
	}
	return b.String()
}
