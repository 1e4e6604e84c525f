//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
)

// TestWalkBudgets: glob and grep read at most so many entries per call
// and keep at most so many matches to sort, count the rest, and say in
// one line what the budgets cut.
func TestWalkBudgets(t *testing.T) {
	t.Parallel()
	f := serveWith(t, func(s *server) { s.walk = walkBudgets{entries: 50, keep: 20} })
	for i := range 100 {
		f.file(t, fmt.Sprintf("wide/f%03d.txt", i), "needle\n")
	}
	for i := range 30 {
		f.file(t, fmt.Sprintf("some/f%03d.txt", i), "needle\n")
	}
	for i := range 5 {
		f.file(t, fmt.Sprintf("few/f%03d.txt", i), "needle\n")
	}
	tests := []struct {
		name  string
		tool  string
		args  map[string]any
		want  []string
		not   []string
		files int // files listed
	}{
		{name: "glob: the walk's budget", tool: "glob", args: map[string]any{"pattern": "wide/*.txt"},
			want: []string{"[… 30 more files cut; narrow the pattern or path]\n",
				"[results incomplete: 30 more files matched after the first 20, counted only: the files listed are the newest of those 20, not of all; " +
					"the walk stopped after reading 50 entries (the most one glob reads); files past those were not looked at; narrow the pattern or path]\n"},
			files: 20},
		{name: "glob: matches kept", tool: "glob", args: map[string]any{"pattern": "some/*.txt"},
			want: []string{"[… 10 more files cut; narrow the pattern or path]\n",
				"[results incomplete: 10 more files matched after the first 20, counted only: the files listed are the newest of those 20, not of all; narrow the pattern or path]\n"},
			not: []string{"walk stopped"}, files: 20},
		{name: "glob: no match, the walk cut", tool: "glob", args: map[string]any{"pattern": "wide/*.go"},
			want: []string{"No files match", "[results incomplete: the walk stopped after reading 50 entries"}, files: 0},
		{name: "glob within budgets", tool: "glob", args: map[string]any{"pattern": "few/*.txt"}, not: []string{"incomplete", "cut"}, files: 5},
		{name: "grep: the walk's budget", tool: "grep", args: map[string]any{"pattern": "needle", "path": "wide", "output_mode": "count"},
			want:  []string{"50 matching lines in 50 files.\n", "the walk stopped after reading 50 entries (the most one grep reads); files past those were not searched"},
			files: 20},
		{name: "grep: files kept", tool: "grep", args: map[string]any{"pattern": "needle", "path": "some"},
			want: []string{"[… 10 more files cut", "[results incomplete: 10 more matching files after the first 20 were counted only, not listed: the files listed are the newest of those 20, not of all; narrow the path or glob]\n"},
			not:  []string{"walk stopped"}, files: 20},
		{name: "grep count: files kept, all counted", tool: "grep", args: map[string]any{"pattern": "needle", "path": "some", "output_mode": "count"},
			want:  []string{"30 matching lines in 30 files.\n", "[… 10 more files cut", "[results incomplete: 10 more matching files after the first 20 were counted only, not listed; narrow"},
			files: 20},
		{name: "grep content: lines counted", tool: "grep", args: map[string]any{"pattern": "needle", "path": "some", "output_mode": "content"},
			want: []string{"[… 10 more lines cut"}, files: 0},
		{name: "grep within budgets", tool: "grep", args: map[string]any{"pattern": "needle", "path": "few"}, not: []string{"incomplete", "cut"}, files: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.call(t, tc.tool, tc.args)
			wantContains(t, tc.name, res, false, tc.want...)
			for _, s := range tc.not {
				if strings.Contains(res.Content, s) {
					t.Errorf("result has %q:\n%s", s, res.Content)
				}
			}
			if n := len(listed.FindAllString(res.Content, -1)); n != tc.files {
				t.Errorf("%d files listed, want %d:\n%s", n, tc.files, res.Content)
			}
			if n := strings.Count(res.Content, "[results incomplete"); n > 1 {
				t.Errorf("%d incomplete notes, want one line:\n%s", n, res.Content)
			}
		})
	}
}

// listed matches a file listed by glob or grep (count mode too).
var listed = regexp.MustCompile(`\.txt(:\d+)?\n`)

// hugeFolder makes n empty files in one folder of a temporary tree: hard
// links to one empty file beside it (creating 200,000 files takes
// 20 times as long on ext4).
func hugeFolder(tb testing.TB, n int) string {
	tb.Helper()
	top := tb.TempDir()
	dir := filepath.Join(top, "huge")
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	var src string
	for i := range n {
		if i%60_000 == 0 { // ext4 allows 65,000 links to a file
			src = filepath.Join(top, fmt.Sprintf("empty%d", i))
			if err := os.WriteFile(src, nil, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.Link(src, filepath.Join(dir, fmt.Sprintf("f%06d.txt", i))); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

const hugeFiles = 200_000

// TestWalkHugeFolder: a folder of 200,000 files is read in batches: the
// walk holds a batch of it, not the folder, stops within a few entries of
// its context's end, and within its budget.
func TestWalkHugeFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 200,000 files")
	}
	dir := hugeFolder(t, hugeFiles)
	tests := []struct {
		name     string
		budget   int
		cancelAt int // the visit that cancels the walk's context, 0 for none
		visits   int // visits, at most (and exactly, without cancellation)
		cut      bool
		peak     uint64 // live heap during the walk above what it was before, at most
	}{
		{name: "the whole folder, a batch at a time", budget: maxWalkEntries, visits: hugeFiles, peak: 8 << 20},
		{name: "cancelled in the folder's sorted start", budget: maxWalkEntries, cancelAt: 5_000, visits: 5_000 + 64},
		{name: "cancelled in a later batch", budget: maxWalkEntries, cancelAt: 15_500, visits: 15_500 + 64},
		{name: "the budget stops it", budget: 150_000, visits: 150_000, cut: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			base := liveHeap()
			var peak uint64
			visits := 0
			ws, err := newTree(openRoot(t, dir), dir).walk(ctx, tc.budget, func(_ *os.Root, p, rel string, d fs.DirEntry) error {
				visits++
				if visits == tc.cancelAt {
					cancel()
				}
				if tc.peak > 0 && visits%5_000 == 0 {
					peak = max(peak, liveHeap())
				}
				return nil
			})
			if tc.cancelAt > 0 {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err %v, want the context's", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if visits > tc.visits || (tc.cancelAt == 0 && visits != tc.visits) {
				t.Errorf("%d visits, want %d (at most, when cancelled)", visits, tc.visits)
			}
			if ws.cut != tc.cut {
				t.Errorf("cut %v, want %v (%d entries read)", ws.cut, tc.cut, ws.visited)
			}
			if tc.peak > 0 {
				t.Logf("live heap during the walk: %.1f MiB above the %.1f MiB before", float64(peak-min(peak, base))/(1<<20), float64(base)/(1<<20))
				if peak > base && peak-base > tc.peak {
					t.Errorf("live heap grew by %.1f MiB during the walk, want at most %.1f MiB", float64(peak-base)/(1<<20), float64(tc.peak)/(1<<20))
				}
			}
		})
	}

	// glob over it keeps 10,000 matches, counts the rest, and says so.
	s, call := direct(t)
	call.Cwd = filepath.Dir(dir)
	res, err := s.glob(t.Context(), call, globArgs{Pattern: "huge/*.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[results incomplete: %d more files matched after the first %d, counted only", hugeFiles-maxKeptMatches, maxKeptMatches)
	if !strings.Contains(res.Content, want) || strings.Count(res.Content, "\n") != maxGlobResults+2 {
		t.Errorf("glob of %d files: %d lines, want %d ending with %q:\n%.500s", hugeFiles, strings.Count(res.Content, "\n"), maxGlobResults+2, want, res.Content)
	}
}

// BenchmarkGlobHugeFolder: what a glob over a folder of 200,000 empty
// files allocates (B/op), and the live heap it leaves at its end.
func BenchmarkGlobHugeFolder(b *testing.B) {
	dir := hugeFolder(b, hugeFiles)
	s := newServer(diskFiles{}, &fakeAsker{answer: pluginapi.PermissionResponse{Allowed: true}})
	call := &pluginapi.Call{CallRequest: pluginapi.CallRequest{Cwd: filepath.Dir(dir), SessionID: "s1"}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.glob(b.Context(), call, globArgs{Pattern: "huge/*.txt"})
		if err != nil || res.IsError {
			b.Fatal(err, res.Content)
		}
	}
}

// BenchmarkWalkHugeFolder: the live heap a walk of a folder of 200,000
// empty files holds while it runs (peak-live-MiB, sampled after a
// collection every 5,000 files).
func BenchmarkWalkHugeFolder(b *testing.B) {
	dir := hugeFolder(b, hugeFiles)
	b.ReportAllocs()
	var peak, base uint64
	for b.Loop() {
		base = liveHeap()
		visits := 0
		newTree(openRoot(b, dir), dir).walk(b.Context(), maxWalkEntries, func(_ *os.Root, p, rel string, d fs.DirEntry) error {
			if visits++; visits%5_000 == 0 {
				peak = max(peak, liveHeap())
			}
			return nil
		})
	}
	b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-live-MiB")
}

// BenchmarkGrepTree: a grep over 2,000 small files in 40 folders, every
// file opened beneath its folder (fsroot) and searched.
func BenchmarkGrepTree(b *testing.B) {
	dir := b.TempDir()
	for i := range 2000 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%40), fmt.Sprintf("f%04d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("some text line\n", 20)+"needle\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s := newServer(diskFiles{}, &fakeAsker{answer: pluginapi.PermissionResponse{Allowed: true}})
	call := &pluginapi.Call{CallRequest: pluginapi.CallRequest{Cwd: dir, SessionID: "s1"}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.grep(b.Context(), call, grepArgs{Pattern: "needle", OutputMode: modeCount})
		if err != nil || res.IsError || !strings.Contains(res.Content, "2000 matching lines in 2000 files") {
			b.Fatal(err, res.Content)
		}
	}
}
