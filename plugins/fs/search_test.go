//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repo lays out a repository with nested .gitignore files:
//
//	.gitignore        *.log, build/, !keep.log
//	sub/.gitignore    secret.txt, /local.txt (anchored to sub)
//	sub/deep/.gitignore  !secret.txt  (re-included below)
func repo(t *testing.T) fixture {
	f := serve(t)
	os.Mkdir(filepath.Join(f.cwd, ".git"), 0o755)
	files := map[string]string{
		".git/config":         "needle in git\n",
		".gitignore":          "*.log\nbuild/\n!keep.log\n# a comment\n",
		"a.go":                "package a\n// needle one\n",
		"b.txt":               "Needle upper\nno\nneedle two\n",
		"app.log":             "needle in log\n",
		"keep.log":            "needle kept\n",
		"build/out.go":        "needle built\n",
		"sub/.gitignore":      "secret.txt\n/local.txt\n",
		"sub/secret.txt":      "needle secret\n",
		"sub/local.txt":       "needle local\n",
		"sub/x/local.txt":     "needle not anchored here\n",
		"sub/deep/.gitignore": "!secret.txt\n",
		"sub/deep/secret.txt": "needle re-included\n",
		"bin.dat":             "needle\x00binary\n",
		"ctx.md":              "1\n2\n3 needle\n4\n5\n6\n7\n8 needle\n9\n",
	}
	old := time.Now().Add(-time.Hour)
	for rel, c := range files {
		os.Chtimes(f.file(t, rel, c), old, old)
	}
	now := time.Now()
	os.Chtimes(filepath.Join(f.cwd, "b.txt"), now, now)
	return f
}

func TestGrep(t *testing.T) {
	t.Parallel()
	f := repo(t)
	p := func(rel string) string { return filepath.Join(f.cwd, rel) }
	tests := []struct {
		name string
		args map[string]any
		want []string // exact lines of the result, in order
	}{
		{name: "files: gitignore nesting, binary and .git skipped", args: map[string]any{"pattern": "needle", "output_mode": "count"},
			want: []string{p("a.go") + ":1", p("b.txt") + ":1", p("ctx.md") + ":2", p("keep.log") + ":1",
				p("sub/deep/secret.txt") + ":1", p("sub/x/local.txt") + ":1", "7 matching lines in 6 files."}},
		{name: "case-insensitive", args: map[string]any{"pattern": "needle", "-i": true, "output_mode": "count", "glob": "*.txt"},
			want: []string{p("b.txt") + ":2", p("sub/deep/secret.txt") + ":1", p("sub/x/local.txt") + ":1", "4 matching lines in 3 files."}},
		{name: "content with line numbers", args: map[string]any{"pattern": "needle (one|two)", "output_mode": "content"},
			want: []string{p("a.go") + ":2:// needle one", "--", p("b.txt") + ":3:needle two"}},
		{name: "content without line numbers", args: map[string]any{"pattern": "two", "output_mode": "content", "-n": false},
			want: []string{p("b.txt") + ":needle two"}},
		{name: "context", args: map[string]any{"pattern": "needle", "path": "ctx.md", "output_mode": "content", "context": 1},
			want: []string{p("ctx.md") + "-2-2", p("ctx.md") + ":3:3 needle", p("ctx.md") + "-4-4", "--",
				p("ctx.md") + "-7-7", p("ctx.md") + ":8:8 needle", p("ctx.md") + "-9-9"}},
		{name: "-A and -B, merged groups", args: map[string]any{"pattern": "needle", "path": "ctx.md", "output_mode": "content", "-A": 3, "-B": 0},
			want: []string{p("ctx.md") + ":3:3 needle", p("ctx.md") + "-4-4", p("ctx.md") + "-5-5", p("ctx.md") + "-6-6", "--",
				p("ctx.md") + ":8:8 needle", p("ctx.md") + "-9-9"}},
		{name: "in a subfolder the root's rules apply", args: map[string]any{"pattern": "needle", "path": "sub", "glob": "**/*.txt", "output_mode": "count"},
			want: []string{p("sub/deep/secret.txt") + ":1", p("sub/x/local.txt") + ":1", "2 matching lines in 2 files."}},
		{name: "files newest first", args: map[string]any{"pattern": "needle", "glob": "{a.go,b.txt}"},
			want: []string{p("b.txt"), p("a.go")}},
		{name: "an ignored folder asked for explicitly", args: map[string]any{"pattern": "needle", "path": "build"},
			want: []string{p("build/out.go")}},
		{name: "head_limit", args: map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 2, "glob": "ctx.md"},
			want: []string{p("ctx.md") + ":3:3 needle", "--", p("ctx.md") + ":8:8 needle"}},
		{name: "head_limit cuts", args: map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 1, "glob": "ctx.md"},
			want: []string{p("ctx.md") + ":3:3 needle", "[… 1 more lines cut (head_limit 1); narrow the pattern, path or glob, or raise head_limit]"}},
		{name: "no match", args: map[string]any{"pattern": "zebra"},
			want: []string{`No matches for "zebra" in ` + f.cwd + " (9 files searched)."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.call(t, "grep", tc.args)
			if res.IsError {
				t.Fatalf("error: %s", res.Content)
			}
			got := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("grep %v =\n%s\nwant\n%s", tc.args, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestGrepCapsAndErrors(t *testing.T) {
	t.Parallel()
	f := serve(t)
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "hit %d\n", i)
	}
	f.file(t, "many.txt", b.String())
	f.file(t, "wide.txt", strings.Repeat("hit "+strings.Repeat("w", 1000)+"\n", 100))
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"default head_limit", map[string]any{"pattern": "hit", "output_mode": "content", "glob": "many.txt"}, false,
			"[… 50 more lines cut (head_limit 250); narrow the pattern, path or glob, or raise head_limit]"},
		{"byte cap", map[string]any{"pattern": "hit", "output_mode": "content", "glob": "wide.txt"}, false,
			"more lines cut (output capped at 30000 bytes)"},
		{"bad regexp", map[string]any{"pattern": "a(b"}, true, "Error: pattern is not a valid RE2 regular expression: missing closing ): `a(b`"},
		{"lookahead is not RE2", map[string]any{"pattern": "a(?=b)"}, true, "not a valid RE2"},
		{"bad glob", map[string]any{"pattern": "a", "glob": "[a"}, true, `glob "[a" is not a valid pattern`},
		{"missing path", map[string]any{"pattern": "a", "path": "nope"}, true, "does not exist"},
		{"negative context", map[string]any{"pattern": "a", "-C": -1}, true, "-C must be 0 or more"},
		{"a device", map[string]any{"pattern": "a", "path": "/dev/zero"}, true, "is a character device; grep searches files and folders"},
	}
	for _, tc := range tests {
		res := f.call(t, "grep", tc.args)
		wantContains(t, tc.name, res, tc.isError, tc.want)
		if len(res.Content) > maxGrepOutput+300 {
			t.Errorf("%s: %d bytes", tc.name, len(res.Content))
		}
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	f := repo(t)
	p := func(rel string) string { return filepath.Join(f.cwd, rel) }
	now := time.Now()
	for i, rel := range []string{"a.go", "sub/deep/secret.txt", "b.txt", "sub/x/local.txt"} {
		os.Chtimes(p(rel), now, now.Add(time.Duration(-i)*time.Hour)) // a.go newest
	}
	os.Symlink(p("a.go"), p("link.go"))
	os.Chtimes(p("a.go"), now, now) // the symlink's target
	loop := p("sub/loop")
	os.Symlink(p("sub"), loop) // a folder loop: never followed
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    []string
	}{
		{name: "** newest first, gitignore respected", args: map[string]any{"pattern": "**/*.txt"},
			want: []string{p("sub/deep/secret.txt"), p("b.txt"), p("sub/x/local.txt")}},
		{name: "relative to path", args: map[string]any{"pattern": "*.txt", "path": "sub/x"}, want: []string{p("sub/x/local.txt")}},
		{name: "literal prefix", args: map[string]any{"pattern": "sub/**/secret.txt"}, want: []string{p("sub/deep/secret.txt")}},
		{name: "absolute pattern", args: map[string]any{"pattern": f.cwd + "/*.{go,md}"}, want: []string{p("a.go"), p("link.go"), p("ctx.md")}},
		{name: "ignored files not listed", args: map[string]any{"pattern": "**/*.log"}, want: []string{p("keep.log")}},
		{name: "none", args: map[string]any{"pattern": "**/*.rs"}, want: []string{`No files match "**/*.rs" in ` + f.cwd + "."}},
		{name: "bad pattern", args: map[string]any{"pattern": "[a"}, isError: true, want: []string{`Error: pattern "[a" is not a valid glob`}},
		{name: "path is a file", args: map[string]any{"pattern": "*", "path": "a.go"}, isError: true, want: []string{"Error: " + p("a.go") + " is not a directory; path names the folder to search in"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.call(t, "glob", tc.args)
			if res.IsError != tc.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Content)
			}
			got := strings.TrimSuffix(res.Content, "\n")
			if got != strings.Join(tc.want, "\n") {
				t.Errorf("glob %v =\n%s\nwant\n%s", tc.args, got, strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestGlobCap(t *testing.T) {
	t.Parallel()
	f := serve(t)
	for i := range 130 {
		f.file(t, fmt.Sprintf("d/f%03d.txt", i), "")
	}
	res := f.call(t, "glob", map[string]any{"pattern": "d/*.txt"})
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	if len(lines) != 101 || lines[100] != "[… 30 more files cut; narrow the pattern or path]" {
		t.Errorf("glob of 130 files: %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}
