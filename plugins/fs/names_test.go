//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestQuotedNames: a file name that is not UTF-8, holds a newline or does
// not print is Go-quoted in results (one line, one name; valid UTF-8),
// and the quoted name given back as a path is accepted.
func TestQuotedNames(t *testing.T) {
	t.Parallel()
	f := serve(t)
	nl := f.file(t, "new\nline.txt", "needle\n")
	lat := f.file(t, "caf\xe9.txt", "needle\n")
	bidi := f.file(t, "evil\u202Etxt.go", "needle\n")
	plain := f.file(t, "plain.txt", "needle\n")
	f.file(t, "d\nir/x.txt", "")
	q := strconv.Quote

	// names checks the lines of a listing, in any order (lines sorted), and
	// that every line names, quoted or not, an existing path (dir: relative
	// to it; a trailing "/" is a folder).
	names := func(dir string, lines []string) func(t *testing.T, content string) {
		return func(t *testing.T, content string) {
			t.Helper()
			got := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
			slices.Sort(got) // glob and grep list the newest first
			if len(got) != len(lines) {
				t.Fatalf("%d lines, want %d:\n%s", len(got), len(lines), content)
			}
			for i, l := range got {
				if l != lines[i] {
					t.Errorf("line %d = %q, want %q", i, l, lines[i])
				}
				if _, err := os.Lstat(filepath.Join(dir, unquoteArg(strings.TrimSuffix(l, "/")))); err != nil {
					t.Errorf("line %q names nothing: %v", l, err)
				}
			}
		}
	}
	contains := func(subs ...string) func(t *testing.T, content string) {
		return func(t *testing.T, content string) {
			t.Helper()
			for _, s := range subs {
				if !strings.Contains(content, s) {
					t.Errorf("result lacks %q:\n%s", s, content)
				}
			}
		}
	}
	tests := []struct {
		name  string
		tool  string
		args  map[string]any
		check func(t *testing.T, content string)
	}{
		{name: "grep files", tool: "grep", args: map[string]any{"pattern": "needle", "glob": "*.{txt,go}"},
			check: names("/", []string{q(lat), q(bidi), q(nl), plain})},
		{name: "grep count", tool: "grep", args: map[string]any{"pattern": "needle", "output_mode": "count", "glob": "new*"},
			check: contains(q(nl) + ":1\n")},
		{name: "grep content", tool: "grep", args: map[string]any{"pattern": "needle", "output_mode": "content", "glob": "caf*"},
			check: contains(q(lat) + ":1:needle\n")},
		{name: "glob", tool: "glob", args: map[string]any{"pattern": "*.txt"},
			check: names("/", []string{q(lat), q(nl), plain})},
		{name: "read a folder", tool: "read", args: map[string]any{"file_path": "."},
			check: func(t *testing.T, content string) {
				_, list, _ := strings.Cut(content, ":\n")
				names(f.cwd, []string{q("caf\xe9.txt"), q("d\nir") + "/", q("evil\u202Etxt.go"), q("new\nline.txt"), "plain.txt"})(t, list)
			}},
		{name: "read by the quoted name", tool: "read", args: map[string]any{"file_path": q(nl)},
			check: contains(q(nl) + ", lines 1–1 of 1:\n     1\tneedle\n")},
		{name: "read by the quoted relative name", tool: "read", args: map[string]any{"file_path": q("caf\xe9.txt")},
			check: contains(q(lat) + ", lines 1–1")},
		{name: "grep a quoted path", tool: "grep", args: map[string]any{"pattern": "needle", "path": q(filepath.Join(f.cwd, "d\nir")), "output_mode": "count"},
			check: contains("No matches", q(filepath.Join(f.cwd, "d\nir")))},
		{name: "a missing quoted name", tool: "read", args: map[string]any{"file_path": q("caf\xe9.tx")},
			check: contains(q(filepath.Join(f.cwd, "caf\xe9.tx"))+" does not exist", "did you mean "+q(lat))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.call(t, tc.tool, tc.args)
			if !utf8.ValidString(res.Content) || !utf8.ValidString(res.Meta.Title) {
				t.Errorf("result is not UTF-8: %q (title %q)", res.Content, res.Meta.Title)
			}
			tc.check(t, res.Content)
		})
	}

	// An edit through the quoted name changes the file, and says so in UTF-8.
	wantContains(t, "edit", f.call(t, "edit", map[string]any{"file_path": q(lat), "old_string": "needle", "new_string": "pin"}), false, "Edited "+q(lat))
	if b, _ := os.ReadFile(lat); string(b) != "pin\n" {
		t.Errorf("after the edit: %q", b)
	}
}
