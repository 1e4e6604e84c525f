package termsafe

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hostile are the strings of the attacks the package exists for.
var hostile = map[string]string{
	"erase and redraw":   "rm -rf victim #\x1b[2K\x1b[1A\x1b[2K\r→ bash {\"command\":\"ls -la\"}\n\x1b[2KAllow bash: ls -la? [y]es / [n]o / [a]lways\x1b[8m",
	"OSC 52 clipboard":   "ok\x1b]52;c;cm0gLXJmIH4K\x07",
	"OSC 8 link":         "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
	"DCS APC PM SOS":     "\x1bPq#0;2;0;0;0\x1b\\\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\",
	"C1 CSI and OSC":     "\u009b2J\u009d52;c;eA==\u009c",
	"lone ESC":           "a\x1bb\x1b",
	"reset":              "\x1bc\x1b#8",
	"bidi":               "ls \u202egnp.exe\u202c \u2066x\u2069 \u202a\u202b\u202d",
	"zero width":         "r\u200bm\u200c \u200d-rf\u2060 \ufeff/",
	"backspace":          "rm -rf /home\b\b\b\b\b/tmp ",
	"bell, VT, FF, DEL":  "\a\v\f\x7f",
	"invalid UTF-8":      "a\xffb\xc0\xafc\xe2\x80",
	"separators":         "one\u2028two\u2029",
	"tags and soft hyph": "x\U000e0041\u00ady",
}

// wantSafe fails t when out holds anything a terminal could interpret: a
// control character (newline and tab aside with lines), a format
// character, a line or paragraph separator or invalid UTF-8.
func wantSafe(t *testing.T, in, out string, lines bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%q → %q: invalid UTF-8", in, out)
	}
	for _, r := range out {
		if lines && (r == '\n' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
			t.Fatalf("%q → %q holds %U", in, out, r)
		}
	}
}

func TestHostileShownEscaped(t *testing.T) {
	t.Parallel()
	for name, in := range hostile {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			line, text := Line(in), Text(in)
			wantSafe(t, in, line, false)
			wantSafe(t, in, text, true)
			if strings.Contains(line, "\n") {
				t.Errorf("Line(%q) = %q spans lines", in, line)
			}
		})
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"git status -s", "git status -s"},
		{"naïve → ✓ 日本", "naïve → ✓ 日本"},
		{"a\nb\tc\r", `a\nb\tc\r`},
		{"rm -rf victim #\x1b[2K\x1b[1A", `rm -rf victim #\x1b[2K\x1b[1A`},
		{"\x1b]52;c;eA==\x07", `\x1b]52;c;eA==\x07`},
		{"\x1b]8;;https://e.x/\x1b\\a\x1b]8;;\x1b\\", `\x1b]8;;https://e.x/\x1b\a\x1b]8;;\x1b\`},
		{"\u009b2J", `\u009b2J`},
		{"ls \u202egnp.exe", `ls \u202egnp.exe`},
		{"\u200b\u200c\u200d\u2060\ufeff", `\u200b\u200c\u200d\u2060\ufeff`},
		{"\u2066x\u2069", `\u2066x\u2069`},
		{"x\U000e0041", `x\U000e0041`},
		{"\b\x7f\x00", `\x08\x7f\x00`},
		{"a\xffb\xe2\x80", `a\xffb\xe2\x80`},
		{"a\\x1b", `a\x1b`}, // backslashes are not doubled
		{"victim\ufe00 \u3164\u034f\U000e0100", `victim\ufe00 \u3164\u034f\U000e0100`},
		{"❤\ufe0f", `❤\ufe0f`},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"line one\n\tindented\n", "line one\n\tindented\n"},
		{"crlf\r\nend", "crlf\nend"},
		{"10%\r20%\r", `10%\r20%\r`},
		{"red \x1b[31mtext\x1b[0m", `red \x1b[31mtext\x1b[0m`},
		{"up\x1b[1A\x1b[2Kfake", `up\x1b[1A\x1b[2Kfake`},
		{"\x1b]52;c;eA==\x07", `\x1b]52;c;eA==\x07`},
		{"a\xffb", "a\ufffdb"},
		{"cut \xe2\x80", "cut \ufffd\ufffd"},
		{"\u202e\u200d", `\u202e\u200d`},
		{"line\u2028sep", `line\u2028sep`},
		{"❤\ufe0f \u3164", "❤\ufe0f \u3164"}, // invisible characters stay in text
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// streamed runs in through a Stream cut at the given offsets.
func streamed(in string, cuts []int) string {
	var s Stream
	var b strings.Builder
	last := 0
	for _, c := range cuts {
		if c < last || c > len(in) {
			continue
		}
		b.WriteString(s.Next(in[last:c]))
		last = c
	}
	b.WriteString(s.Next(in[last:]))
	b.WriteString(s.End())
	return b.String()
}

// TestStreamCuts: a sequence, a character or a CR LF cut between pieces
// comes out as Text of the whole, at every cut and byte by byte.
func TestStreamCuts(t *testing.T) {
	t.Parallel()
	for name, in := range hostile {
		want := Text(in)
		for i := 0; i <= len(in); i++ {
			if got := streamed(in, []int{i}); got != want {
				t.Fatalf("%s cut at %d: %q, want %q", name, i, got, want)
			}
		}
		every := make([]int, len(in))
		for i := range every {
			every[i] = i
		}
		if got := streamed(in, every); got != want {
			t.Fatalf("%s byte by byte: %q, want %q", name, got, want)
		}
	}
	for _, tc := range []struct {
		pieces []string
		want   string
	}{
		{[]string{"a\r", "\nb"}, "a\nb"},
		{[]string{"a\r", "b"}, `a\rb`},
		{[]string{"\xc2", "\x9b2J"}, `\u009b2J`}, // a C1 CSI cut in its UTF-8
		{[]string{"\xe2\x80", "\xae"}, `\u202e`},
		{[]string{"\x1b", "]52;c;", "eA==\x07"}, `\x1b]52;c;eA==\x07`},
		{[]string{"é"[:1]}, "\ufffd"},
	} {
		var s Stream
		var b strings.Builder
		for _, p := range tc.pieces {
			b.WriteString(s.Next(p))
		}
		b.WriteString(s.End())
		if b.String() != tc.want {
			t.Errorf("pieces %q → %q, want %q", tc.pieces, b.String(), tc.want)
		}
	}
}

// TestStreamHoldsLittle: a Stream holds back at most 4 bytes, so a
// piece's text shows when it arrives, not at the end.
func TestStreamHoldsLittle(t *testing.T) {
	t.Parallel()
	var s Stream
	if got := s.Next("plain text "); got != "plain text " {
		t.Errorf("plain piece → %q", got)
	}
	if got := s.Next("ends in \xe2\x80"); got != "ends in " || len(s.held) != 2 {
		t.Errorf("cut character → %q, held %q", got, s.held)
	}
	if got := s.Next("\xa6 more"); got != "… more" {
		t.Errorf("rest of the character → %q", got)
	}
}

func TestIdempotent(t *testing.T) {
	t.Parallel()
	for _, in := range hostile {
		line := Line(in)
		if Line(line) != line || Text(line) != line {
			t.Errorf("Line(%q) = %q is not a fixed point: Line %q, Text %q", in, line, Line(line), Text(line))
		}
		text := Text(in)
		if Text(text) != text {
			t.Errorf("Text(%q) = %q is not a fixed point: %q", in, text, Text(text))
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("closed")
}

func TestWriter(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewWriter(&b)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if n, err := w.Write([]byte("log \x1b]52;c;eA==\x07 line\n")); err != nil || n != len("log \x1b]52;c;eA==\x07 line\n") {
					t.Errorf("Write = %d, %v", n, err)
				}
			}
		}()
	}
	wg.Wait()
	w.Write([]byte("tail \xe2\x80"))
	if b.Len() == 0 || strings.Contains(b.String(), "\ufffd") {
		t.Fatalf("before Flush: %q", b.String())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("log \\x1b]52;c;eA==\\x07 line\n", 400) + "tail \ufffd\ufffd"
	if b.String() != want {
		t.Errorf("wrote %q…, want %q…", b.String()[:60], want[:60])
	}
	fw := &failWriter{}
	if _, err := NewWriter(fw).Write([]byte("x")); err == nil || fw.n != 1 {
		t.Errorf("a failing writer: err %v after %d writes", err, fw.n)
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Line(in)
		wantSafe(t, in, out, false)
		if strings.Contains(out, "\n") || Line(out) != out {
			t.Fatalf("Line(%q) = %q: not one line or not a fixed point", in, out)
		}
		for _, r := range out {
			if Invisible(r) {
				t.Fatalf("Line(%q) = %q holds %U", in, out, r)
			}
		}
		if utf8.ValidString(in) && !strings.ContainsFunc(in, func(r rune) bool { return Unsafe(r) || Invisible(r) }) && out != in {
			t.Fatalf("Line changed plain text %q to %q", in, out)
		}
	})
}

// FuzzStream: any text cut anywhere comes out safe and as Text of the
// whole.
func FuzzStream(f *testing.F) {
	for _, s := range hostile {
		f.Add(s, uint(3), uint(7))
	}
	f.Fuzz(func(t *testing.T, in string, a, b uint) {
		want := Text(in)
		wantSafe(t, in, want, true)
		if Text(want) != want {
			t.Fatalf("Text(%q) = %q is not a fixed point", in, want)
		}
		cuts := []int{int(a % uint(len(in)+1)), int(b % uint(len(in)+1))}
		if cuts[0] > cuts[1] {
			cuts[0], cuts[1] = cuts[1], cuts[0]
		}
		if got := streamed(in, cuts); got != want {
			t.Fatalf("%q cut at %v: %q, want %q", in, cuts, got, want)
		}
	})
}

func BenchmarkText(b *testing.B) {
	plain := strings.Repeat("ordinary tool output, line after line\n", 100)
	b.SetBytes(int64(len(plain)))
	for b.Loop() {
		_ = Text(plain)
	}
}

func BenchmarkTextEscapes(b *testing.B) {
	var s strings.Builder
	for s.Len() < 4000 {
		s.WriteString("\x1b[31mred\x1b[0m naïve ✓ \u202e\r\n")
	}
	in := s.String()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		_ = Text(in)
	}
}
