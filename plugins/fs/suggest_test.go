//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingSuggestions: the names suggested for a missing file come
// from a bounded look at its folder: none once the context has ended,
// long names compared on their start.
func TestMissingSuggestions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("é", 120) // 240 bytes, 120 runes
	for _, n := range []string{"config.yaml", "main.go", long + "b.txt", "other"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		path string
		want []string
		not  []string
	}{
		{name: "near names", ctx: t.Context(), path: "confg.yaml", want: []string{"did you mean " + filepath.Join(dir, "config.yaml") + "?"}},
		{name: "the context ended: no names looked at", ctx: cancelled, path: "confg.yaml", want: []string{"confg.yaml does not exist"}, not: []string{"did you mean"}},
		{name: "long names compared on their start", ctx: t.Context(), path: long + "c.txt", want: []string{"did you mean " + filepath.Join(dir, long+"b.txt") + "?"}},
		{name: "nothing near", ctx: t.Context(), path: "zzz", not: []string{"did you mean"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := missingMessage(tc.ctx, absTarget(t, filepath.Join(dir, tc.path)))
			for _, s := range tc.want {
				if !strings.Contains(msg, s) {
					t.Errorf("message lacks %q: %s", s, msg)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(msg, s) {
					t.Errorf("message has %q: %s", s, msg)
				}
			}
		})
	}
}

// TestMissingHugeFolder: a missing name in a folder of 200,000 files is
// compared with the first 10,000 names only: the allocations of one
// message are bounded by those, not by the folder.
func TestMissingHugeFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 200,000 files")
	}
	dir := hugeFolder(t, hugeFiles)
	p := filepath.Join(dir, "f00000x.txt")
	var msg string
	tp := absTarget(t, p)
	allocs := testing.AllocsPerRun(2, func() { msg = missingMessage(t.Context(), tp) })
	t.Logf("%.0f allocations per message", allocs)
	if max := 6.0 * maxSuggestLook; allocs > max {
		t.Errorf("%.0f allocations per message, want at most %.0f", allocs, max)
	}
	if !strings.Contains(msg, "; did you mean "+dir+"/f") {
		t.Errorf("message: %s", msg)
	}
}

// BenchmarkMissingHugeFolder: the message for a missing name in a folder
// of 200,000 files.
func BenchmarkMissingHugeFolder(b *testing.B) {
	dir := hugeFolder(b, hugeFiles)
	tp := absTarget(b, filepath.Join(dir, "f00000x.txt"))
	b.ReportAllocs()
	for b.Loop() {
		missingMessage(b.Context(), tp)
	}
}

// BenchmarkNearestLongNames: a 255-byte missing name against 1,000
// names of 255 bytes (the longest a name is on Linux).
func BenchmarkNearestLongNames(b *testing.B) {
	want := strings.Repeat("a", 250) + "x.txt"
	names := make([]string, 1000)
	for i := range names {
		names[i] = strings.Repeat("a", 248) + fmt.Sprintf("%03d.txt", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		nearestNames(b.Context(), want, names, 5)
	}
}

// absTarget is the absolute path p as a target opened beneath "/", as
// resolve opens a path outside the project.
func absTarget(tb testing.TB, p string) target {
	tb.Helper()
	t := target{Path: p, Real: p}
	if err := t.open("/"); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(t.close)
	return t
}

// openRoot opens the folder dir for a walk.
func openRoot(tb testing.TB, dir string) *os.Root {
	tb.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return r
}
