package slash

import (
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
)

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		in         []event.Content
		name, args string
		ok         bool
	}{
		{in: event.Text("/compact"), name: "compact", ok: true},
		{in: event.Text("  /compact  \n"), name: "compact", ok: true},
		{in: event.Text("/init keep it short\nplease"), name: "init", args: "keep it short\nplease", ok: true},
		{in: event.Text("/compacted"), ok: false},    // not the command's word
		{in: event.Text("/frobnicate x"), ok: false}, // unknown: text for the model
		{in: event.Text("please /compact"), ok: false},
		{in: event.Text("compact"), ok: false},
		{in: event.Text("/"), ok: false},
		{in: nil, ok: false},
		{in: []event.Content{{Type: event.ContentResourceLink, URI: "file:///compact", Name: "/compact"}}, ok: false},
	} {
		name, args, ok := ParseCommand(tc.in)
		if name != tc.name || args != tc.args || ok != tc.ok {
			t.Errorf("ParseCommand(%+v) = %q, %q, %v; want %q, %q, %v", tc.in, name, args, ok, tc.name, tc.args, tc.ok)
		}
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/compact", "/init x", " /x", "/", "text"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, args, ok := ParseCommand(event.Text(s))
		if !ok {
			if name != "" || args != "" {
				t.Fatalf("not a command but %q %q", name, args)
			}
			return
		}
		if !strings.Contains(s, "/"+name) || !strings.Contains(s, args) {
			t.Fatalf("%q parsed as %q %q", s, name, args)
		}
	})
}

func TestParseWord(t *testing.T) {
	for _, tc := range []struct {
		in         []event.Content
		word, args string
		ok         bool
	}{
		{in: event.Text("/srv:greet Ada  Lovelace \n"), word: "srv:greet", args: "Ada  Lovelace", ok: true},
		{in: event.Text(" /compact"), word: "compact", ok: true},
		{in: event.Text("/ x"), ok: false},
		{in: event.Text("/"), ok: false},
		{in: event.Text("a /b"), ok: false},
		{in: nil, ok: false},
	} {
		word, args, ok := ParseWord(tc.in)
		if word != tc.word || args != tc.args || ok != tc.ok {
			t.Errorf("ParseWord(%+v) = %q, %q, %v; want %q, %q, %v", tc.in, word, args, ok, tc.word, tc.args, tc.ok)
		}
	}
}

// FuzzParseWord: a word found is non-empty, holds no white space, and is
// what follows the first slash of the text.
func FuzzParseWord(f *testing.F) {
	for _, s := range []string{"/compact", " /srv:p a b", "/", "x /y", "/a\tb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		word, args, ok := ParseWord(event.Text(s))
		if !ok {
			return
		}
		if word == "" || strings.ContainsAny(word, " \t\n\r") || !strings.Contains(s, "/"+word) {
			t.Errorf("ParseWord(%q) = %q, %q", s, word, args)
		}
	})
}
