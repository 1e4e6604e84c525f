//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	t.Parallel()
	f := serve(t)
	ten := ""
	for i := 1; i <= 10; i++ {
		ten += fmt.Sprintf("line %d\n", i)
	}
	f.file(t, "ten.txt", ten)
	f.file(t, "crlf.txt", "a\r\nb\r\n")
	f.file(t, "nonl.txt", "x\ny")
	f.file(t, "long.txt", strings.Repeat("é", 1500)+"\nshort\n")
	f.file(t, "empty.txt", "")
	f.file(t, "bin.dat", "PK\x03\x04\x00\x00binary")
	f.file(t, "bad.txt", "ok \xff\xfe end\n")
	f.file(t, "dir/a.go", "")
	f.file(t, "dir/sub/b.go", "")
	f.file(t, "config.yaml", "")
	f.file(t, "config_test.go", "")
	f.file(t, "README.md", "")
	abs := func(rel string) string { return filepath.Join(f.cwd, rel) }

	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    []string
		not     []string
	}{
		{name: "numbered like cat -n", args: map[string]any{"file_path": "ten.txt"},
			want: []string{abs("ten.txt") + ", lines 1–10 of 10:\n     1\tline 1\n     2\tline 2\n", "    10\tline 10\n"}, not: []string{"continue"}},
		{name: "absolute path", args: map[string]any{"file_path": abs("ten.txt")}, want: []string{"     1\tline 1\n"}},
		{name: "offset and limit", args: map[string]any{"file_path": "ten.txt", "offset": 4, "limit": 2},
			want: []string{"lines 4–5 of 10:\n     4\tline 4\n     5\tline 5\n[more lines follow; continue with offset=6]"}, not: []string{"line 3\n", "line 6\n"}},
		{name: "offset 0 is the start", args: map[string]any{"file_path": "ten.txt", "offset": 0, "limit": 1}, want: []string{"     1\tline 1\n"}},
		{name: "last line", args: map[string]any{"file_path": "ten.txt", "offset": 10}, want: []string{"lines 10–10 of 10:\n    10\tline 10\n"}, not: []string{"continue"}},
		{name: "offset past the end", args: map[string]any{"file_path": "ten.txt", "offset": 11}, isError: true, want: []string{"has 10 lines; offset 11 is past the end"}},
		{name: "negative offset", args: map[string]any{"file_path": "ten.txt", "offset": -1}, isError: true, want: []string{"offset must be a line number"}},
		{name: "zero limit", args: map[string]any{"file_path": "ten.txt", "limit": 0}, isError: true, want: []string{"limit must be at least 1"}},
		{name: "crlf endings dropped", args: map[string]any{"file_path": "crlf.txt"}, want: []string{"     1\ta\n     2\tb\n"}, not: []string{"\r"}},
		{name: "last line without newline", args: map[string]any{"file_path": "nonl.txt"}, want: []string{"of 2:\n     1\tx\n     2\ty\n"}},
		{name: "long line cut on a rune boundary", args: map[string]any{"file_path": "long.txt"},
			want: []string{"     1\t" + strings.Repeat("é", 1000) + " … [line cut: 1000 more bytes]\n     2\tshort\n"}},
		{name: "empty file", args: map[string]any{"file_path": "empty.txt"}, want: []string{abs("empty.txt") + " is empty (0 bytes)."}},
		{name: "binary file", args: map[string]any{"file_path": "bin.dat"}, want: []string{abs("bin.dat") + " is a binary file (application/zip, 12 bytes); not shown."}},
		{name: "invalid UTF-8 replaced", args: map[string]any{"file_path": "bad.txt"}, want: []string{"     1\tok \uFFFD end\n"}},
		{name: "directory lists entries", args: map[string]any{"file_path": "dir"},
			want: []string{abs("dir") + " is a directory with 2 entries", "a.go\nsub/\n"}},
		{name: "missing file: nearest names", args: map[string]any{"file_path": "confg.yaml"}, isError: true,
			want: []string{"Error: " + abs("confg.yaml") + " does not exist; did you mean " + abs("config.yaml")}},
		{name: "missing file: other case, same stem", args: map[string]any{"file_path": "readme.txt"}, isError: true,
			want: []string{"did you mean " + abs("README.md") + "?"}},
		{name: "missing folder on the way", args: map[string]any{"file_path": "dri/a.go"}, isError: true,
			want: []string{abs("dri/a.go") + " does not exist (no dri in " + f.cwd + "); did you mean " + abs("dir") + "/?"}},
		{name: "nothing near", args: map[string]any{"file_path": "zzzzzzzz.qq"}, isError: true, not: []string{"did you mean"}},
		{name: "dot-dot is cleaned", args: map[string]any{"file_path": "dir/sub/../../ten.txt"}, want: []string{abs("ten.txt") + ", lines 1–10"}},
		{name: "empty path", args: map[string]any{"file_path": ""}, isError: true, want: []string{"the path is empty"}},
		{name: "NUL in path", args: map[string]any{"file_path": "a\x00b"}, isError: true, want: []string{"NUL"}},
		{name: "character device", args: map[string]any{"file_path": "/dev/zero"}, isError: true,
			want: []string{"/dev/zero is a character device, not a regular file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.call(t, "read", tc.args)
			wantContains(t, tc.name, res, tc.isError, tc.want...)
			for _, s := range tc.not {
				if strings.Contains(res.Content, s) {
					t.Errorf("result has %q:\n%s", s, res.Content)
				}
			}
		})
	}
}

// TestReadHostile: what could hang the plugin or exhaust its memory
// answers at once.
func TestReadHostile(t *testing.T) {
	t.Parallel()
	f := serve(t)
	fifo := filepath.Join(f.cwd, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	sparse := filepath.Join(f.cwd, "sparse.img")
	sf, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	sf.WriteString("hello\n")
	if err := sf.Truncate(1 << 30); err != nil {
		t.Fatalf("truncate: %v", err)
	}
	sf.Close()
	loop := filepath.Join(f.cwd, "loop")
	os.Symlink(loop+"2", loop)
	os.Symlink(loop, loop+"2")
	passwd := filepath.Join(f.cwd, "pw")
	os.Symlink("/etc/passwd", passwd)
	dangling := filepath.Join(f.cwd, "dangling")
	os.Symlink(filepath.Join(f.cwd, "nowhere"), dangling)

	tests := []struct {
		name    string
		path    string
		isError bool
		want    string
	}{
		{"fifo", fifo, true, fifo + " is a named pipe (FIFO), not a regular file"},
		{"1 GiB sparse file", sparse, false, sparse + " is a binary file (application/octet-stream, 1.0 GiB); not shown."},
		{"symlink loop", loop, true, "resolve " + loop},
		{"symlink to /etc/passwd names the target", passwd, false, passwd + " (symlink to /etc/passwd), lines 1–"},
		{"dangling symlink", dangling, true, dangling + " is a symlink to " + filepath.Join(f.cwd, "nowhere") + ", which does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res := f.call(t, "read", map[string]any{"file_path": tc.path})
			// A hang here is for ever; 30 s leaves room for a loaded machine.
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("read took %v", d)
			}
			wantContains(t, tc.name, res, tc.isError, tc.want)
		})
	}
}

// TestReadLargeText streams a text file over the 16 MiB kept in memory:
// pages from the middle, without a total.
func TestReadLargeText(t *testing.T) {
	t.Parallel()
	f := serve(t)
	line := strings.Repeat("x", 99) + "\n"
	p := f.file(t, "big.txt", strings.Repeat(line, 180_000)) // 18 MB
	res := f.call(t, "read", map[string]any{"file_path": p, "offset": 170_000, "limit": 3})
	wantContains(t, "big", res, false, p+", lines 170000–170002:\n170000\t"+strings.Repeat("x", 99)+"\n", "[more lines follow; continue with offset=170003]")
	res = f.call(t, "read", map[string]any{"file_path": p})
	wantContains(t, "output cap", res, false, "[output capped at 100000 bytes; continue with offset=")
	if len(res.Content) > maxReadOutput+200 {
		t.Errorf("read returned %d bytes", len(res.Content))
	}
	wantContains(t, "edit refuses", f.call(t, "edit", map[string]any{"file_path": p, "old_string": "x", "new_string": "y"}), true, "over the 16.0 MiB that edit handles")
}
