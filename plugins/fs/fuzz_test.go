//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// FuzzParseIgnore: any .gitignore text parses and matches without a
// panic; comments and blank lines yield no pattern.
func FuzzParseIgnore(f *testing.F) {
	for _, s := range []string{"*.log\n!keep.log\nbuild/\n", "# c\n\n  \n", "/a/**/b\r\n", "\\#x\n[\n", "a\\ \n**\n!\n/\n"} {
		f.Add(s, "x/y.log")
	}
	f.Fuzz(func(t *testing.T, text, path string) {
		ps := parseIgnore([]byte(text), []string{"d"})
		lines := 0
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSuffix(l, "\r")
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
				lines++
			}
		}
		if len(ps) != lines {
			t.Fatalf("%d patterns from %d pattern lines", len(ps), lines)
		}
		comps := append([]string{"d"}, strings.Split(path, "/")...)
		m := gitignore.NewMatcher(ps)
		m.Match(comps, true)
		m.Match(comps, false)
	})
}

// FuzzNumberLines: the page shows exactly the lines asked for, each once,
// numbered in order, and agrees with countLines.
func FuzzNumberLines(f *testing.F) {
	f.Add("a\nb\r\nc", 1, 3)
	f.Add("\n\n\n", 2, 1)
	f.Add(strings.Repeat("x", 5000)+"\ny\n", 1, 2000)
	f.Add("", 1, 1)
	f.Fuzz(func(t *testing.T, text string, offset, limit int) {
		if offset < 1 || limit < 1 || offset > 1000 || limit > 1000 {
			return
		}
		data := []byte(text)
		total := countLines(data)
		p, err := numberLines(context.Background(), bufio.NewReaderSize(bytes.NewReader(data), 16), offset, limit, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		want := max(0, min(limit, total-offset+1))
		got := strings.Count(p.text, "\n")
		if got != want {
			t.Fatalf("%d lines shown, want %d (total %d, offset %d, limit %d):\n%q", got, want, total, offset, limit, p.text)
		}
		if want > 0 && (p.first != offset || p.last != offset+want-1) {
			t.Fatalf("lines %d–%d, want %d–%d", p.first, p.last, offset, offset+want-1)
		}
		if p.more != (offset+want-1 < total) && want > 0 {
			t.Fatalf("more = %v with %d of %d", p.more, offset+want-1, total)
		}
	})
}

// FuzzReplacedRegions: the regions point at the new text's lines that
// hold the replacement.
func FuzzReplacedRegions(f *testing.F) {
	f.Add("a\nb\nc\nb\n", "b", "x\ny")
	f.Add("aaa", "a", "")
	f.Add("x\n\ny\n", "\ny", "\nz\n")
	f.Fuzz(func(t *testing.T, text, from, to string) {
		if from == "" || !strings.Contains(text, from) {
			return
		}
		n := strings.Count(text, from)
		regions := replacedRegions(text, from, to, n)
		if len(regions) != n {
			t.Fatalf("%d regions for %d matches", len(regions), n)
		}
		newText := strings.ReplaceAll(text, from, to)
		lines := strings.Count(newText, "\n") + 1
		prev := 0
		for _, r := range regions {
			if r.First < prev || r.Last < r.First || r.First < 1 || r.First > lines {
				t.Fatalf("region %v out of order or range (%d lines)", r, lines)
			}
			prev = r.First
		}
		_ = snippet(newText, regions, 3, 3)
	})
}
