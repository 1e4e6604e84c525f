// Package shorten cuts text down for one-line messages: error messages,
// log lines and terminal summaries. Its one job is to make a string short
// and single-line without splitting a UTF-8 character; a cut is marked
// with "…". It depends on the standard library only, and any package may
// use it.
//
// Three ways to make text one line, for three needs:
//
//   - [OneLine] keeps all of it, every run of white space (newlines
//     included) made one space: an error message quoted in another;
//   - [FirstLine] keeps what comes before the first newline, as is;
//   - [Headline] keeps the first line of the trimmed text and marks the
//     lines left out with " …": a summary of a longer text.
//
// Three ways to make it short: [Runes] to a number of characters (for a
// terminal), [Bytes] to a number of bytes from the start, [TailBytes] to a
// number of bytes from the end (the latest output of a process).
package shorten

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks where text was cut.
const Ellipsis = "…"

// OneLine is s with every run of white space, newlines included, replaced
// by one space and none at either end.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// FirstLine is s up to its first newline, or all of s if it has none.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Headline is the first line of s trimmed of white space, followed by
// " …" when more lines follow.
func Headline(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " " + Ellipsis
	}
	return s
}

// Runes is s if it has at most n runes, else its first n-1 runes and "…":
// n runes in all. n must be at least 1.
func Runes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + Ellipsis
}

// Bytes is s if it has at most n bytes, else the longest prefix of at most
// n bytes that ends on a rune boundary, and "…".
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + Ellipsis
}

// TailBytes is s if it has at most n bytes, else "…" and the longest
// suffix of at most n bytes that starts on a rune boundary.
func TailBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return Ellipsis + s[i:]
}
