//go:build unix

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func sanitize(chunks ...string) string {
	var s sanitizer
	var out []rune
	for _, c := range chunks {
		out = s.appendRunes(out, []byte(c))
	}
	return string(s.flush(out))
}

func TestSanitizer(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain text\n", "plain text\n"},
		{"tab\there", "tab\there"},
		{"crlf\r\nline\r\n", "crlf\nline\n"},
		{"bar 10%\rbar 20%\rdone\n", "bar 10%\nbar 20%\ndone\n"},
		{"\r\r\n", "\n\n"},
		{"nul\x00bel\x07bs\x08del\x7f", "nul␀bel␇bs␈del␡"},
		{"\x1b[1;31mred\x1b[0m", "red"},
		{"\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"},
		{"\x1b]0;title\x07after", "after"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1b(Bcharset", "charset"},
		{"\x1bMreverse", "reverse"},
		{"esc\x1b\nnewline", "esc\nnewline"},
		{"csi\x1b[12\nbroken", "csi\nbroken"},
		{"é世🎉", "é世🎉"},
		{"\xff\xfe", "\uFFFD\uFFFD"},
		{"cut\xe4\xb8", "cut\uFFFD"},
		{"cut\xe4\xb8x", "cut\uFFFDx"},
		{"overlong\xc0\xaf", "overlong\uFFFD\uFFFD"},
		{"surrogate\xed\xa0\x80", "surrogate\uFFFD"},
		{"c1\xc2\x85", "c1\uFFFD"},
		{"too big\xf4\x90\x80\x80", "too big\uFFFD"},
		// ESC, then maxEscape bytes at most; the rest is shown.
		{"\x1b]" + strings.Repeat("x", maxEscape+10), strings.Repeat("x", 11)},
	}
	for _, tt := range tests {
		if got := sanitize(tt.in); got != tt.want {
			t.Errorf("sanitize(%.80q) = %.80q, want %.80q", tt.in, got, tt.want)
		}
		// Any split into two chunks gives the same text.
		for i := 1; i < len(tt.in); i++ {
			if got := sanitize(tt.in[:i], tt.in[i:]); got != tt.want {
				t.Errorf("sanitize(%.80q | %.80q) = %.80q, want %.80q", tt.in[:i], tt.in[i:], got, tt.want)
			}
		}
	}
}

func FuzzSanitizer(f *testing.F) {
	f.Add([]byte("a\x1b[31mb\r\n\xe4\xb8\xad\x00"), 3)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		whole := sanitize(string(in))
		if !utf8.ValidString(whole) {
			t.Fatalf("invalid UTF-8 from %q", in)
		}
		for _, r := range whole {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
				t.Fatalf("control %U from %q", r, in)
			}
		}
		if split >= 0 && split <= len(in) {
			if got := sanitize(string(in[:split]), string(in[split:])); got != whole {
				t.Fatalf("split at %d: %q, whole: %q", split, got, whole)
			}
		}
	})
}

// TestOutputCap checks the cut at the characters' level: multi-byte
// characters count as one, the first third and the last two thirds are
// kept, the marker and the trailer fit in maxChars.
func TestOutputCap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := newOutput(dir, "x", nil, false, nil)
	line := strings.Repeat("世", 99) + "\n" // 100 characters, 298 bytes
	for range 1000 {
		_, _ = o.Write([]byte(line))
	}
	o.close()
	got := o.text("Error: lead\n", "(no output)", "[exit code: 1]")
	if n := utf8.RuneCountInString(got); n > maxChars || n < maxChars-3 {
		t.Errorf("%d characters, want %d at most, and not much less", n, maxChars)
	}
	head, rest, _ := strings.Cut(got, "\n[… ")
	marker, tail, _ := strings.Cut(rest, "]\n")
	head = strings.TrimPrefix(head, "Error: lead\n")
	tail = strings.TrimSuffix(tail, "[exit code: 1]")
	h, tl := utf8.RuneCountInString(head), utf8.RuneCountInString(tail)
	if h < 9800 || tl < 2*h-2 || tl > 2*h+2 {
		t.Errorf("kept %d + %d characters", h, tl)
	}
	if !strings.HasPrefix(marker, commas(int64(100_000-h-tl))+" characters cut; full output: ") || !strings.HasSuffix(marker, "(298,000 bytes)") {
		t.Errorf("marker %q", marker)
	}
	b, err := os.ReadFile(spillIn(t, marker))
	if err != nil || string(b) != strings.Repeat(line, 1000) {
		t.Errorf("spill file: %d bytes, %v", len(b), err)
	}
}

// TestOutputNoSpill: an output cut without a spill folder says why.
func TestOutputNoSpill(t *testing.T) {
	t.Parallel()
	o := newOutput("", "x", errors.New("/tmp/x is not a private folder of this user"), false, nil)
	_, _ = o.Write([]byte(strings.Repeat("y", 50_000)))
	o.close()
	got := o.text("", "", "")
	want := "[… 20," // the count then the reason
	if !strings.Contains(got, want) || !strings.Contains(got, "full output: unavailable (no folder for it: /tmp/x is not a private folder of this user)]") {
		t.Errorf("got …%q…", got[9990:10200])
	}
}

// TestOutputTake: take returns what arrived since the last take.
func TestOutputTake(t *testing.T) {
	t.Parallel()
	o := newOutput(t.TempDir(), "x", nil, false, nil)
	if got := o.take("(none)", "[s]"); got != "(none)\n[s]" {
		t.Errorf("got %q", got)
	}
	_, _ = o.Write([]byte("one\n"))
	_, _ = o.Write([]byte("two"))
	if got := o.take("(none)", "[s]"); got != "one\ntwo\n[s]" {
		t.Errorf("got %q", got)
	}
	_, _ = o.Write([]byte("\xe4"))
	if got := o.take("(none)", "[s]"); got != "(none)\n[s]" {
		t.Errorf("a partial character was shown: %q", got)
	}
	_, _ = o.Write([]byte("\xb8\xad!"))
	o.close()
	if got := o.take("(none)", "[s]"); got != "中!\n[s]" {
		t.Errorf("got %q", got)
	}
	if got := o.take("(none)", "[s]"); got != "(none)\n[s]" {
		t.Errorf("got %q", got)
	}
}

func TestEnsurePrivate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "p")
	if err := ensurePrivate(dir); err != nil {
		t.Fatal(err)
	}
	if err := ensurePrivate(dir); err != nil {
		t.Fatalf("second time: %v", err)
	}
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(open, 0o777)
	if err := ensurePrivate(open); err == nil {
		t.Error("a folder others may enter passed")
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if err := ensurePrivate(link); err == nil {
		t.Error("a symbolic link passed")
	}
}

func TestFileName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"call_abc-1.x": "call_abc-1.x", "": "fb", "../../etc": "_._.._etc", ".hidden": "_hidden",
		"a/b c": "a_b_c", strings.Repeat("z", 80): strings.Repeat("z", 64), "é": "__",
	} {
		if got := fileName(in, "fb"); got != want {
			t.Errorf("fileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommas(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q", n, got)
		}
	}
}
