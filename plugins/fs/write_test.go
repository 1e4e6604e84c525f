//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadBeforeWrite: write and edit change only what the session read
// as it is now.
func TestReadBeforeWrite(t *testing.T) {
	t.Parallel()
	f := serve(t)
	p := f.file(t, "a.txt", "one\n")
	write := func(content string, session ...string) map[string]any {
		return map[string]any{"file_path": p, "content": content}
	}
	read := map[string]any{"file_path": p}
	steps := []struct {
		name    string
		tool    string
		args    map[string]any
		session string
		before  func()
		isError bool
		want    string
		file    string // the file's contents after the step
	}{
		{name: "write unread", tool: "write", args: write("two\n"), isError: true,
			want: "Error: " + p + " exists and this session has not read it; read it first, then write or edit it", file: "one\n"},
		{name: "edit unread", tool: "edit", args: map[string]any{"file_path": p, "old_string": "one", "new_string": "1"}, isError: true,
			want: "has not read it", file: "one\n"},
		{name: "read", tool: "read", args: read, want: "     1\tone\n", file: "one\n"},
		{name: "another session has not read it", tool: "write", args: write("two\n"), session: "s2", isError: true, want: "has not read it", file: "one\n"},
		{name: "write after read", tool: "write", args: write("two\n"), want: "Wrote " + p + ": 1 lines (+1 −1).", file: "two\n"},
		{name: "write again: its own write counts as read", tool: "write", args: write("three\n"), want: "Wrote " + p, file: "three\n"},
		{name: "changed on disk after the read", tool: "write", args: write("four\n"),
			before:  func() { os.WriteFile(p, []byte("changed by someone\n"), 0o644) },
			isError: true, want: p + " changed since this session last read it (now 19 bytes, modified ", file: "changed by someone\n"},
		{name: "edit refused too", tool: "edit", args: map[string]any{"file_path": p, "old_string": "someone", "new_string": "me"},
			isError: true, want: "changed since this session last read it", file: "changed by someone\n"},
		{name: "read again", tool: "read", args: read, want: "changed by someone", file: "changed by someone\n"},
		{name: "touched but same contents", tool: "edit", args: map[string]any{"file_path": p, "old_string": "someone", "new_string": "me"},
			before: func() { os.Chtimes(p, time.Now(), time.Now().Add(time.Hour)) },
			want:   "Edited " + p + ": 1 replacement, line 1.", file: "changed by me\n"},
		{name: "same content", tool: "write", args: write("changed by me\n"), want: "no change", file: "changed by me\n"},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		session := "s1"
		if s.session != "" {
			session = s.session
		}
		res := f.call(t, s.tool, s.args, session)
		wantContains(t, s.name, res, s.isError, s.want)
		if b, _ := os.ReadFile(p); string(b) != s.file {
			t.Errorf("%s: file = %q, want %q", s.name, b, s.file)
		}
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	f := serve(t)
	exe := f.file(t, "run.sh", "#!/bin/sh\n")
	os.Chmod(exe, 0o751)
	f.file(t, "adir/x", "")
	f.file(t, "plain", "")
	target := f.file(t, "real.txt", "old\n")
	link := filepath.Join(f.cwd, "link.txt")
	os.Symlink(target, link)

	res := f.call(t, "write", map[string]any{"file_path": "new/deep/file.txt", "content": "a\nb\n"})
	wantContains(t, "new file", res, false, "Created "+filepath.Join(f.cwd, "new/deep/file.txt")+" (2 lines, 4 bytes).")

	f.call(t, "read", map[string]any{"file_path": exe})
	wantContains(t, "keep mode", f.call(t, "write", map[string]any{"file_path": exe, "content": "#!/bin/sh\necho hi\n"}), false, "Wrote")
	if fi, _ := os.Stat(exe); fi.Mode().Perm() != 0o751 {
		t.Errorf("mode after write = %v, want 0751", fi.Mode().Perm())
	}

	wantContains(t, "directory", f.call(t, "write", map[string]any{"file_path": "adir", "content": "x"}), true,
		filepath.Join(f.cwd, "adir")+" is a directory; write changes files")
	wantContains(t, "under a file", f.call(t, "write", map[string]any{"file_path": "plain/x.txt", "content": "x"}), true, "not a directory")
	wantContains(t, "device", f.call(t, "write", map[string]any{"file_path": "/dev/null", "content": "x"}), true, "a character device, not a regular file")

	f.call(t, "read", map[string]any{"file_path": link})
	wantContains(t, "through a symlink", f.call(t, "write", map[string]any{"file_path": link, "content": "new\n"}), false, "Wrote "+target)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("target = %q", b)
	}
	left, _ := filepath.Glob(filepath.Join(f.cwd, ".*harness*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestEdit(t *testing.T) {
	t.Parallel()
	const src = "package x\n\nfunc a() int { return 1 }\n\nfunc b() int { return 1 }\n\nvar c = 3\n"
	tests := []struct {
		name    string
		content string // the file (default src)
		args    map[string]any
		isError bool
		want    []string
		file    string // after; "" for unchanged
	}{
		{name: "unique", args: map[string]any{"old_string": "var c = 3", "new_string": "var c = 4"},
			want: []string{"Edited {p}: 1 replacement, line 7.\n     4\t\n     5\tfunc b() int { return 1 }\n     6\t\n     7\tvar c = 4\n"},
			file: strings.Replace(src, "var c = 3", "var c = 4", 1)},
		{name: "not unique", args: map[string]any{"old_string": "return 1", "new_string": "return 2"}, isError: true,
			want: []string{"Error: old_string matches 2 times in {p} (line 3, line 5); add surrounding lines to make it unique, or set replace_all to replace every one"}},
		{name: "replace all", args: map[string]any{"old_string": "return 1", "new_string": "return 2", "replace_all": true},
			want: []string{"Edited {p}: 2 replacements, line 3, line 5."}, file: strings.ReplaceAll(src, "return 1", "return 2")},
		{name: "not found", args: map[string]any{"old_string": "return 9", "new_string": "x"}, isError: true,
			want: []string{"Error: old_string was not found in {p}; read the file again"}},
		{name: "same strings", args: map[string]any{"old_string": "var c", "new_string": "var c"}, isError: true,
			want: []string{"old_string and new_string are the same"}},
		{name: "empty old_string", args: map[string]any{"old_string": "", "new_string": "x"}, isError: true,
			want: []string{"old_string is empty"}},
		{name: "multi-line to more lines", args: map[string]any{"old_string": "func a() int { return 1 }\n", "new_string": "func a() int {\n\treturn 1\n}\n"},
			want: []string{"1 replacement, lines 3–5."}, file: strings.Replace(src, "func a() int { return 1 }\n", "func a() int {\n\treturn 1\n}\n", 1)},
		{name: "deletion", args: map[string]any{"old_string": "\nvar c = 3\n", "new_string": ""},
			want: []string{"1 replacement, line 6."}, file: strings.TrimSuffix(src, "\nvar c = 3\n")},
		{name: "crlf file, lf old_string", content: "a\r\nb\r\nc\r\n", args: map[string]any{"old_string": "a\nb", "new_string": "x\ny"},
			want: []string{"1 replacement, lines 1–2."}, file: "x\r\ny\r\nc\r\n"},
		{name: "many matches listed up to 10", content: strings.Repeat("x\n", 12), args: map[string]any{"old_string": "x", "new_string": "y"}, isError: true,
			want: []string{"matches 12 times", "line 10, 2 more)"}},
		{name: "binary", content: "a\x00b", args: map[string]any{"old_string": "a", "new_string": "b"}, isError: true, want: []string{"is a binary file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := serve(t)
			content := tc.content
			if content == "" {
				content = src
			}
			p := f.file(t, "x.go", content)
			f.call(t, "read", map[string]any{"file_path": p})
			args := map[string]any{"file_path": "x.go"}
			for k, v := range tc.args {
				args[k] = v
			}
			res := f.call(t, "edit", args)
			for i, w := range tc.want {
				tc.want[i] = strings.ReplaceAll(w, "{p}", p)
			}
			wantContains(t, tc.name, res, tc.isError, tc.want...)
			want := tc.file
			if want == "" {
				want = content
			}
			if b, _ := os.ReadFile(p); string(b) != want {
				t.Errorf("file = %q, want %q", b, want)
			}
		})
	}
}

func TestEditMissing(t *testing.T) {
	t.Parallel()
	f := serve(t)
	f.file(t, "main.go", "")
	res := f.call(t, "edit", map[string]any{"file_path": "mian.go", "old_string": "a", "new_string": "b"})
	wantContains(t, "missing", res, true, filepath.Join(f.cwd, "mian.go")+" does not exist; did you mean "+filepath.Join(f.cwd, "main.go")+"?")
}

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	ch := fileChange{Path: "/p/a.txt", OldText: "a\nb\nc\n", NewText: "a\nB\nc\n"}
	want := "--- /p/a.txt\n+++ /p/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	if got := ch.UnifiedDiff(); got != want {
		t.Errorf("diff =\n%s\nwant\n%s", got, want)
	}
	if a, r := ch.lineCounts(); a != 1 || r != 1 {
		t.Errorf("lineCounts = +%d -%d", a, r)
	}
	created := fileChange{Path: "/p/n.txt", NewText: "x\n", Created: true}
	if got := created.UnifiedDiff(); !strings.HasPrefix(got, "--- /dev/null\n+++ /p/n.txt\n@@ -0,0 +1 @@\n+x\n") {
		t.Errorf("diff of a new file =\n%s", got)
	}
}
