//go:build unix

package main

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNotUTF8: a file that is not UTF-8 (Latin-1, Shift-JIS, a stray
// byte) is read and written on disk byte for byte, with or without an
// editor serving files: an edit keeps every byte it does not replace, and
// results stay UTF-8.
func TestNotUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		content  string
		tool     string
		args     map[string]any // file_path is added
		isError  bool
		want     []string // in the result
		wantDisk string   // the file afterwards
	}{
		{name: "edit a Latin-1 file", content: "caf\xe9 = 1\nother \xff line\n", tool: "edit",
			args: map[string]any{"old_string": "= 1", "new_string": "= 2"},
			want: []string{"1 replacement, line 1.\n     1\tcaf\uFFFD = 2\n     2\tother \uFFFD line\n"}, wantDisk: "caf\xe9 = 2\nother \xff line\n"},
		{name: "edit a Shift-JIS file, replace_all", content: "\x82\xa0 x\nx \x83\x41\n", tool: "edit",
			args: map[string]any{"old_string": "x", "new_string": "yy", "replace_all": true},
			want: []string{"2 replacements"}, wantDisk: "\x82\xa0 yy\nyy \x83\x41\n"},
		{name: "edit a stray byte in UTF-8", content: "naïve \x80\nend\n", tool: "edit",
			args: map[string]any{"old_string": "end", "new_string": "fin"}, wantDisk: "naïve \x80\nfin\n"},
		{name: "old_string with U+FFFD copied from read", content: "caf\xe9 = 1\n", tool: "edit",
			args: map[string]any{"old_string": "caf\uFFFD = 1", "new_string": "x"}, isError: true,
			want: []string{"the file is not UTF-8, read shows its other bytes as U+FFFD"}, wantDisk: "caf\xe9 = 1\n"},
		{name: "write UTF-8 over a Latin-1 file", content: "caf\xe9\n", tool: "write",
			args: map[string]any{"content": "café\n"}, want: []string{"Wrote"}, wantDisk: "café\n"},
		{name: "read says it is not UTF-8", content: "caf\xe9\n", tool: "read", args: map[string]any{},
			want: []string{"[the file is not valid UTF-8: its invalid bytes are shown as \uFFFD; edit keeps them as they are", "     1\tcaf\uFFFD\n"}, wantDisk: "caf\xe9\n"},
	}
	for _, host := range []string{"host from disk", "editor"} {
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			var f fixture
			var ed *editorHost
			if host == "editor" {
				f, ed = serveEditor(t)
			} else {
				f = serve(t)
			}
			for i, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					rel := "f" + string(rune('a'+i)) + ".txt"
					p := f.file(t, rel, tc.content)
					if ed != nil {
						ed.mu.Lock()
						ed.buffers[p] = strings.ToValidUTF8(tc.content, "\uFFFD") // as an editor decodes it
						ed.mu.Unlock()
					}
					wantContains(t, "read", f.call(t, "read", map[string]any{"file_path": rel}), false)
					args := map[string]any{"file_path": rel}
					for k, v := range tc.args {
						args[k] = v
					}
					res := f.call(t, tc.tool, args)
					wantContains(t, tc.name, res, tc.isError, tc.want...)
					if !utf8.ValidString(res.Content) {
						t.Errorf("result is not UTF-8: %q", res.Content)
					}
					if b, _ := os.ReadFile(p); string(b) != tc.wantDisk {
						t.Errorf("disk %q, want %q", b, tc.wantDisk)
					}
				})
			}
		})
	}
}
