package shorten

import (
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"  a\n\tb  \r\n c ", "a b c"},
		{"a\n\nb", "a b"},
	} {
		if got := OneLine(tc.in); got != tc.want {
			t.Errorf("OneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"one\ntwo", "one"},
		{" one \ntwo", " one "},
		{"\nsecond", ""},
	} {
		if got := FirstLine(tc.in); got != tc.want {
			t.Errorf("FirstLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHeadline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"  one  ", "one"},
		{"one\ntwo", "one …"},
		{"\n\n one\ntwo\n", "one …"},
		{"one\n\n", "one"},
	} {
		if got := Headline(tc.in); got != tc.want {
			t.Errorf("Headline(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRunes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"héllo", 5, "héllo"},
		{"héllo wörld", 4, "hél…"},
		{"日本語テキスト", 3, "日本…"},
		{"ab", 1, "…"},
	} {
		if got := Runes(tc.in, tc.n); got != tc.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"aé", 2, "a…"}, // é is two bytes: not split
		{"aéb", 3, "aé…"},
		{"日本", 4, "日…"},
		{"日本", 2, "…"},
		{"abc", 0, "…"},
	} {
		if got := Bytes(tc.in, tc.n); got != tc.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestTailBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "…bcd"},
		{"éa", 2, "…a"}, // é is two bytes: not split
		{"aéb", 3, "…éb"},
		{"日本", 4, "…本"},
		{"日本", 2, "…"},
		{"abc", 0, "…"},
	} {
		if got := TailBytes(tc.in, tc.n); got != tc.want {
			t.Errorf("TailBytes(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// FuzzCuts: a cut never splits a character of valid text and never
// exceeds its budget (plus the mark).
func FuzzCuts(f *testing.F) {
	f.Add("héllo wörld", 4)
	f.Add("日本語", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if !utf8.ValidString(s) || n < 1 || n > 1<<16 {
			return
		}
		for name, got := range map[string]string{"Bytes": Bytes(s, n), "TailBytes": TailBytes(s, n), "Runes": Runes(s, n)} {
			if !utf8.ValidString(got) {
				t.Errorf("%s(%q, %d) = %q: not valid UTF-8", name, s, n, got)
			}
		}
		if got := Bytes(s, n); len(got) > n+len(Ellipsis) {
			t.Errorf("Bytes(%q, %d) = %q: over budget", s, n, got)
		}
		if got := TailBytes(s, n); len(got) > n+len(Ellipsis) {
			t.Errorf("TailBytes(%q, %d) = %q: over budget", s, n, got)
		}
		if got := Runes(s, n); utf8.RuneCountInString(got) > n {
			t.Errorf("Runes(%q, %d) = %q: over budget", s, n, got)
		}
	})
}
