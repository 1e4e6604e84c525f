//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// sparseText makes a file that starts with head and is then sparse (NUL
// bytes, no newline) up to size: text to binary detection, one endless
// line to a reader, and no disk.
func sparseText(t *testing.T, p, head string, size int64) string {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(head); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatalf("truncate: %v", err)
	}
	return p
}

// direct is a server called in process, without the plugin protocol, so
// that a test holds the call's context.
func direct(t *testing.T) (*server, *pluginapi.Call) {
	t.Helper()
	s := newServer(diskFiles{}, &fakeAsker{answer: pluginapi.PermissionResponse{Allowed: true}})
	return s, &pluginapi.Call{CallRequest: pluginapi.CallRequest{Cwd: t.TempDir(), SessionID: "s1"}}
}

// TestReadScanCap: one read scans at most 256 MiB of a file, however its
// lines run, and says where it stopped.
func TestReadScanCap(t *testing.T) {
	t.Parallel()
	f := serve(t)
	head := "first\n" + strings.Repeat("a", 10_000)
	p := sparseText(t, filepath.Join(f.cwd, "huge.txt"), head, 300<<20) // line 2: 300 MiB
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    []string
	}{
		{name: "from the start: the line the scan stopped in is cut", args: map[string]any{"file_path": p},
			want: []string{"     1\tfirst\n     2\t" + strings.Repeat("a", maxLineBytes) + " … [line cut: the read stopped scanning here]\n",
				"[read stopped after scanning 256.0 MiB (the most one read scans); continue with offset=3]"}},
		{name: "an offset past the scan", args: map[string]any{"file_path": p, "offset": 3}, isError: true,
			want: []string{"stopped after scanning 256.0 MiB (the most one read scans), 2 lines in, before reaching offset 3; search the file with grep"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res := f.call(t, "read", tc.args)
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("read took %v", d)
			}
			wantContains(t, tc.name, res, tc.isError, tc.want...)
		})
	}
}

// TestCancelInLine: a read or a grep inside one line of a huge file
// stops soon after its context is cancelled, the scan budgets aside.
func TestCancelInLine(t *testing.T) {
	t.Parallel()
	s, call := direct(t)
	s.readScan = 1 << 62
	s.grepBudgets = grepBudgets{line: 1 << 62, file: 1 << 62, call: 1 << 62}
	p := sparseText(t, filepath.Join(call.Cwd, "endless.txt"), strings.Repeat("b", 9000), 1<<40) // one 1 TiB line
	tests := []struct {
		name  string
		delay time.Duration
		run   func(ctx context.Context) error
	}{
		{"read cancelled while scanning", 100 * time.Millisecond, func(ctx context.Context) error {
			_, err := s.read(ctx, call, readArgs{FilePath: p})
			return err
		}},
		// Its first read of the file fails: not an empty file, a cancelled read.
		{"read cancelled before it reads", 0, func(ctx context.Context) error {
			_, err := s.read(ctx, call, readArgs{FilePath: p})
			return err
		}},
		{"read cancelled sooner", 10 * time.Millisecond, func(ctx context.Context) error {
			_, err := s.read(ctx, call, readArgs{FilePath: p})
			return err
		}},
		{"grep cancelled while scanning", 100 * time.Millisecond, func(ctx context.Context) error {
			_, err := s.grep(ctx, call, grepArgs{Pattern: "needle", Path: p, OutputMode: modeCount})
			return err
		}},
		{"grep of the folder cancelled", 100 * time.Millisecond, func(ctx context.Context) error {
			_, err := s.grep(ctx, call, grepArgs{Pattern: "needle", OutputMode: modeContent})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), tc.delay)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- tc.run(ctx) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), context.DeadlineExceeded.Error()) {
					t.Errorf("err %v, want the context's", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("went on scanning a 1 TiB line 20 s after its context ended")
			}
		})
	}
}

// TestReadDirCap: a directory answers with at most 500 names, having
// looked at no more than 10,000 entries, and says what it cut.
func TestReadDirCap(t *testing.T) {
	t.Parallel()
	f := serve(t)
	mk := func(dir string, n int) string {
		d := filepath.Join(f.cwd, dir)
		os.MkdirAll(d, 0o755)
		for i := range n {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	small, mid, huge := mk("small", 3), mk("mid", 600), mk("huge", maxDirLook+50)
	tests := []struct {
		name  string
		path  string
		want  []string
		not   []string
		lines int // at most, names and notes
	}{
		{name: "small", path: small, want: []string{small + " is a directory with 3 entries", "f00000\nf00001\nf00002\n"}, not: []string{"cut"}, lines: 4},
		{name: "over 500: cut", path: mid, want: []string{mid + " is a directory with 600 entries", "f00499\n[… 100 more entries cut]\n"}, not: []string{"f00500"}, lines: 502},
		{name: "over 10,000: looked at 10,000", path: huge,
			want:  []string{huge + " is a directory with more than 10000 entries; read looked at the first 10000 only", "[… listing cut: 500 entries shown of the 10000 looked at, and more not looked at]\n"},
			lines: 502},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.call(t, "read", map[string]any{"file_path": tc.path})
			wantContains(t, tc.name, res, false, tc.want...)
			for _, s := range tc.not {
				if strings.Contains(res.Content, s) {
					t.Errorf("result has %q", s)
				}
			}
			if n := strings.Count(res.Content, "\n"); n > tc.lines {
				t.Errorf("result has %d lines, want at most %d", n, tc.lines)
			}
		})
	}
}

// serveWith serves a server that change adjusted (lower budgets).
func serveWith(t *testing.T, change func(*server)) fixture {
	t.Helper()
	ask := &fakeAsker{answer: pluginapi.PermissionResponse{Allowed: true}}
	s := newServer(diskFiles{}, ask)
	change(s)
	return fixture{c: plugintest.Start(t, s.plugin()), cwd: t.TempDir(), ask: ask}
}

// TestGrepBudgets: grep streams files within budgets (a line's bytes
// matched, a file's searched, the call's scanned) and says in one line
// what they cut.
func TestGrepBudgets(t *testing.T) {
	t.Parallel()
	small := serveWith(t, func(s *server) { s.grepBudgets = grepBudgets{line: 64, file: 1000, call: 4096} })
	long := small.file(t, "one/long.txt", "short needle\n"+strings.Repeat("x", 100)+"needle-late\nneedle3\n")
	big := small.file(t, "two/big.txt", "needle a\n"+strings.Repeat("y\n", 600)+"needle past the cap\n")
	ok := small.file(t, "three/ok.txt", "needle3\n")
	for i := range 10 {
		small.file(t, fmt.Sprintf("many/f%d.txt", i), "needle\n"+strings.Repeat("z", 792)+"\n")
	}
	real := serve(t)
	huge := filepath.Join(real.cwd, "huge.txt")
	sparseText(t, huge, "needle one\n"+strings.Repeat("t", 9000), 40<<20)
	hf, err := os.OpenFile(huge, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	hf.WriteAt([]byte("\nneedle two\n"), 35<<20)
	hf.Close()

	tests := []struct {
		name  string
		f     fixture
		args  map[string]any
		want  []string
		not   []string
		files int // files listed, -1 for any
	}{
		{name: "a long line is matched on its start, and noted", f: small, args: map[string]any{"pattern": "needle", "path": "one", "output_mode": "count"},
			want: []string{long + ":2\n", "[results incomplete: 1 line longer than 64 bytes matched on their first 64 bytes only (first: " + long + ":2); narrow the path or glob]\n"}, files: -1},
		{name: "content of a long line is cut", f: small, args: map[string]any{"pattern": "x+", "path": "one", "output_mode": "content"},
			want: []string{long + ":2:" + strings.Repeat("x", 64) + " … [47 more bytes]\n", "[results incomplete: 1 line longer"}, files: -1},
		{name: "a big file is searched in its start, and noted", f: small, args: map[string]any{"pattern": "needle", "path": "two", "output_mode": "count"},
			want: []string{big + ":1\n", "[results incomplete: 1 file larger than 1000 bytes searched in their first 1000 bytes only (first: " + big + "); narrow the path or glob]\n"}, files: -1},
		{name: "no match, still noted", f: small, args: map[string]any{"pattern": "past the cap", "path": "two"},
			want: []string{"No matches", "[results incomplete: 1 file larger than 1000 bytes"}, files: -1},
		{name: "the call's budget stops the walk", f: small, args: map[string]any{"pattern": "needle", "path": "many"},
			want: []string{"the search stopped after scanning 4.0 KiB (the most one grep scans), 6 files in; files after those were not searched"}, not: []string{"f7.txt", "f9.txt"}, files: 6},
		{name: "within budgets: nothing noted", f: small, args: map[string]any{"pattern": "needle3", "path": "three"}, want: []string{ok + "\n"}, not: []string{"incomplete"}, files: 1},
		{name: "real budgets: a 40 MiB file with a 35 MiB line", f: real, args: map[string]any{"pattern": "needle", "output_mode": "count"},
			want: []string{huge + ":1\n", "[results incomplete: 1 line longer than 1.0 MiB matched on their first 1.0 MiB only (first: " + huge + ":2); 1 file larger than 32.0 MiB searched in their first 32.0 MiB only (first: " + huge + "); narrow the path or glob]\n"}, files: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.f.call(t, "grep", tc.args)
			wantContains(t, tc.name, res, false, tc.want...)
			for _, s := range tc.not {
				if strings.Contains(res.Content, s) {
					t.Errorf("result has %q:\n%s", s, res.Content)
				}
			}
			if n := strings.Count(res.Content, "[results incomplete"); n > 1 {
				t.Errorf("%d incomplete notes, want one line:\n%s", n, res.Content)
			}
			if tc.files >= 0 {
				if n := strings.Count(res.Content, ".txt\n"); n != tc.files {
					t.Errorf("%d files listed, want %d:\n%s", n, tc.files, res.Content)
				}
			}
		})
	}
}

// TestResultCap: write and edit refuse, in one line and before building
// it, new contents over 16 MiB, and change nothing.
func TestResultCap(t *testing.T) {
	t.Parallel()
	f := serve(t)
	small := f.file(t, "small.txt", strings.Repeat("a\n", 1<<20)) // 2 MiB, 1 Mi lines
	exact := f.file(t, "exact.txt", strings.Repeat("b", maxTrackedSize-1)+"\n")
	for _, p := range []string{small, exact} {
		wantContains(t, "read", f.call(t, "read", map[string]any{"file_path": p, "limit": 1}), false)
	}
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		isError bool
		want    string
		file    string // the file, unchanged when isError
	}{
		{name: "write over the cap", tool: "write", args: map[string]any{"file_path": "big.txt", "content": strings.Repeat("x", maxTrackedSize+1)}, isError: true,
			want: "write big.txt: the new contents would be 16.0 MiB (16777217 bytes), over the 16.0 MiB limit of write and edit; nothing was changed"},
		{name: "write at the cap", tool: "write", args: map[string]any{"file_path": "cap.txt", "content": strings.Repeat("x", maxTrackedSize)}, want: "Created"},
		{name: "replace_all multiplying a file", tool: "edit", args: map[string]any{"file_path": small, "old_string": "a", "new_string": strings.Repeat("a", 20), "replace_all": true}, isError: true,
			want: "edit " + small + ": the new contents would be 21.0 MiB (22020096 bytes), over the 16.0 MiB limit of write and edit; nothing was changed", file: small},
		{name: "one replacement past the cap", tool: "edit", args: map[string]any{"file_path": exact, "old_string": "b\n", "new_string": "bc\n"}, isError: true,
			want: "(16777217 bytes), over the 16.0 MiB limit", file: exact},
		{name: "a replace_all that shrinks", tool: "edit", args: map[string]any{"file_path": small, "old_string": "a\n", "new_string": "\n", "replace_all": true}, want: "1048576 replacements"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before []byte
			if tc.file != "" {
				before, _ = os.ReadFile(tc.file)
			}
			res := f.call(t, tc.tool, tc.args)
			wantContains(t, tc.name, res, tc.isError, tc.want)
			if tc.isError && strings.Contains(strings.TrimSuffix(res.Content, "\n"), "\n") {
				t.Errorf("the refusal is more than one line: %.300q", res.Content)
			}
			if tc.file != "" {
				if after, _ := os.ReadFile(tc.file); string(after) != string(before) {
					t.Errorf("%s changed: %d bytes, was %d", tc.file, len(after), len(before))
				}
			}
		})
	}
}
