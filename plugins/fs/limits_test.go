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

// TestReadCancelInLine: a read inside one line of a huge file stops soon
// after its context is cancelled, the scan cap aside.
func TestReadCancelInLine(t *testing.T) {
	t.Parallel()
	s, call := direct(t)
	s.readScan = 1 << 62
	p := sparseText(t, filepath.Join(call.Cwd, "endless.txt"), strings.Repeat("b", 9000), 1<<40) // one 1 TiB line
	tests := []struct {
		name  string
		delay time.Duration
	}{
		{"cancelled while scanning", 100 * time.Millisecond},
		{"cancelled sooner", 10 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), tc.delay)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := s.read(ctx, call, readArgs{FilePath: p})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), context.DeadlineExceeded.Error()) {
					t.Errorf("read: err %v, want the context's", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("read went on scanning a 1 TiB line 20 s after its context ended")
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
