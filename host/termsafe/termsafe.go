package termsafe

import (
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Line returns s as one line of plain text: every character a terminal
// could interpret, newline, tab and carriage return included, and every
// character that draws nothing (see [Invisible]) shown escaped (see the
// package doc); invalid bytes show as \xNN.
func Line(s string) string {
	if plain(s, false) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString(`\x`)
			writeHex(&b, uint32(s[i]), 2)
		} else {
			writeRune(&b, r, false)
		}
		i += n
	}
	return b.String()
}

// Text returns s as lines of plain text: newlines and tabs kept, CR LF
// made LF, every other character a terminal could interpret shown escaped
// (see the package doc); invalid bytes show as U+FFFD.
func Text(s string) string {
	var st Stream
	return st.Next(s) + st.End()
}

// Stream filters text that arrives in pieces as [Text] filters the whole:
// the concatenation of what Next returns for each piece and what End
// returns is Text of the concatenated pieces. The zero value is ready; a
// Stream is not safe for concurrent use.
type Stream struct {
	held []byte // the start of a character, or a CR, cut at the end of the last piece
}

// Next returns what can be shown of the text so far with piece appended,
// holding back at most 4 bytes whose meaning depends on what comes next.
func (s *Stream) Next(piece string) string {
	in := piece
	if len(s.held) > 0 {
		in = string(s.held) + piece
		s.held = s.held[:0]
	}
	if plain(in, true) {
		return in
	}
	var b strings.Builder
	b.Grow(len(in) + 16)
	for i := 0; i < len(in); {
		if !utf8.FullRuneInString(in[i:]) || in[i] == '\r' && i+1 == len(in) {
			s.held = append(s.held, in[i:]...)
			break
		}
		r, n := utf8.DecodeRuneInString(in[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r' && in[i+1] == '\n':
			// CR LF is a line end; the LF comes next
		default:
			writeRune(&b, r, true)
		}
		i += n
	}
	return b.String()
}

// End returns what was held back, shown as [Text] shows the end of a
// text (an incomplete character as U+FFFD, a CR escaped), and resets the
// stream.
func (s *Stream) End() string {
	if len(s.held) == 0 {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(s.held); {
		r, n := utf8.DecodeRune(s.held[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			writeRune(&b, r, true)
		}
		i += n
	}
	s.held = s.held[:0]
	return b.String()
}

// Writer writes what it is given to another writer through a [Stream].
// It is safe for concurrent use; call Flush when the stream ends.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
	s  Stream
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write implements io.Writer: it writes the filtered bytes to the
// underlying writer and reports all of p written when that succeeds.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if out := w.s.Next(string(p)); out != "" {
		if _, err := io.WriteString(w.w, out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what the stream holds back (see [Stream.End]).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if out := w.s.End(); out != "" {
		_, err := io.WriteString(w.w, out)
		return err
	}
	return nil
}

// Invisible reports whether r is a character that draws nothing though it
// is no control — Unicode's default ignorable code points that are not
// format characters: the combining grapheme joiner U+034F, Hangul fillers
// (U+115F, U+1160, U+3164, U+FFA0), Khmer inherent vowels, Mongolian
// variation selectors, variation selectors (U+FE00–U+FE0F,
// U+E0100–U+E01EF) and the reserved ranges among them. [Line] shows them
// escaped, so that a command holds no character it does not show; [Text]
// keeps them (an emoji's U+FE0F).
func Invisible(r rune) bool {
	switch {
	case r < 0x034f:
		return false
	case r == 0x034f, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5, r >= 0x180b && r <= 0x180f,
		r == 0x2065, r == 0x3164, r >= 0xfe00 && r <= 0xfe0f, r == 0xffa0, r >= 0xfff0 && r <= 0xfff8,
		r >= 0xe0000 && r <= 0xe0fff:
		return true
	}
	return false
}

// Unsafe reports whether r is shown escaped by both forms (newline and
// tab aside, which Text keeps): C0 and C1 controls, DEL, format
// characters, and the line and paragraph separators.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r < 0xad:
		return false
	case r == 0x2028, r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// plain reports whether s is valid UTF-8 holding nothing to escape; with
// lines, newlines and tabs count as plain, carriage returns do not.
func plain(s string, lines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return plainUTF8(s[i:], lines)
		}
		if c < 0x20 && !(lines && (c == '\n' || c == '\t')) || c == 0x7f {
			return false
		}
	}
	return true
}

func plainUTF8(s string, lines bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Unsafe(r) && !(lines && (r == '\n' || r == '\t')) || !lines && Invisible(r) {
			return false
		}
		i += n
	}
	return true
}

// writeRune writes r, escaped when a terminal could interpret it; with
// lines, newline and tab are written as they are, without, invisible
// characters are escaped too.
func writeRune(b *strings.Builder, r rune, lines bool) {
	if !Unsafe(r) && (lines || !Invisible(r)) || lines && (r == '\n' || r == '\t') {
		b.WriteRune(r)
		return
	}
	switch r {
	case '\n':
		b.WriteString(`\n`)
	case '\t':
		b.WriteString(`\t`)
	case '\r':
		b.WriteString(`\r`)
	default:
		switch {
		case r < 0x80:
			b.WriteString(`\x`)
			writeHex(b, uint32(r), 2)
		case r <= 0xffff:
			b.WriteString(`\u`)
			writeHex(b, uint32(r), 4)
		default:
			b.WriteString(`\U`)
			writeHex(b, uint32(r), 8)
		}
	}
}

// writeHex writes the n low hex digits of v.
func writeHex(b *strings.Builder, v uint32, n int) {
	const digits = "0123456789abcdef"
	for shift := 4 * (n - 1); shift >= 0; shift -= 4 {
		b.WriteByte(digits[v>>shift&0xf])
	}
}
