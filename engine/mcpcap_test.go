//go:build unix

package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/harness-dev/harness/host/tool"
)

// TestCapMCP: a result within the cap is as it was; a longer one keeps
// its start and end around one line naming the cut, the cap and the spill
// file, within mcpMaxChars characters (counted as characters, not
// bytes); the file holds the whole text, 0600; its blocks keep the cut
// text, the images and the resources by URI; without a session folder
// the text is cut all the same and the line says it is not kept.
func TestCapMCP(t *testing.T) {
	state := t.TempDir()
	call := tool.Call{SessionID: "s-1", Turn: 2, Step: 3, CallID: "call/../x"}
	long := "BEGIN" + strings.Repeat("é", 40_000) + strings.Repeat("z", 40_000) + "END"
	img := tool.Block{Kind: tool.BlockImage, MIMEType: "image/png", Data: []byte("png")}
	cases := []struct {
		name     string
		state    string
		res      tool.Result
		spill    string // the file that holds the whole text, "" for none
		where    string // what the marker says of it
		wantSame bool
	}{
		{name: "within the cap", state: state, res: tool.Result{Content: strings.Repeat("é", mcpMaxChars)}, wantSame: true},
		{name: "over the cap", state: state, res: tool.Result{Content: long},
			spill: filepath.Join(state, "sessions", "s-1", "mcp-2-3-call____x.txt"), where: filepath.Join(state, "sessions", "s-1", "mcp-2-3-call____x.txt") + " (120,008 bytes;"},
		{name: "blocks", state: state, res: tool.Result{Content: long, Blocks: []tool.Block{{Kind: tool.BlockText, Text: long}, img,
			{Kind: tool.BlockResource, URI: "demo://r", MIMEType: "text/plain", Text: "body"}}},
			spill: filepath.Join(state, "sessions", "s-1", "mcp-2-3-call____x.txt"), where: "mcp-2-3-call____x.txt"},
		{name: "no state dir", res: tool.Result{Content: long, IsError: true}, where: "not kept (the session has no folder)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := capMCP(c.state, call, c.res)
			if c.wantSame {
				if got.Content != c.res.Content {
					t.Errorf("a result within the cap changed: %d characters", utf8.RuneCountInString(got.Content))
				}
				return
			}
			if n := utf8.RuneCountInString(got.Content); n > mcpMaxChars || n < mcpMaxChars-100 {
				t.Errorf("capped to %d characters, want at most %d and close to it", n, mcpMaxChars)
			}
			if !strings.HasPrefix(got.Content, "BEGINééé") || !strings.HasSuffix(got.Content, "zzzEND") {
				t.Errorf("the start or the end is lost: %q … %q", got.Content[:20], got.Content[len(got.Content)-20:])
			}
			if !strings.Contains(got.Content, "characters cut (results are capped at 30,000 characters); the whole result: ") ||
				!strings.Contains(got.Content, c.where) {
				t.Errorf("the marker does not say %q: %q", c.where, markerOf(got.Content))
			}
			if got.IsError != c.res.IsError {
				t.Errorf("isError %v, want %v", got.IsError, c.res.IsError)
			}
			if c.spill != "" {
				b, err := os.ReadFile(c.spill)
				if err != nil || string(b) != long {
					t.Errorf("spill file: %d bytes, %v; want the whole text", len(b), err)
				}
				if fi, err := os.Stat(c.spill); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("spill file mode %v, %v; want 0600", fi.Mode(), err)
				}
			}
			if c.res.Blocks != nil {
				if len(got.Blocks) != 3 || got.Blocks[0].Text != got.Content || got.Blocks[1].Kind != tool.BlockImage ||
					got.Blocks[2].URI != "demo://r" || got.Blocks[2].Text != "" {
					t.Errorf("blocks = %+v, want the cut text, the image and the resource by URI", got.Blocks)
				}
			}
		})
	}
}

func markerOf(s string) string {
	if i := strings.Index(s, "\n[…"); i >= 0 {
		s = s[i:]
		if j := strings.Index(s, "]\n"); j >= 0 {
			return s[:j+2]
		}
	}
	return "(no marker)"
}

// FuzzCapMCP: whatever the text, the capped result is at most
// mcpMaxChars characters, keeps the text's start, is valid UTF-8 when the
// text was, and the spill file holds the text whole.
func FuzzCapMCP(f *testing.F) {
	f.Add("short", 1)
	f.Add("é\x00\n", 20_000)
	f.Add("\xff\xfe", 16_000)
	state := f.TempDir()
	f.Fuzz(func(t *testing.T, piece string, n int) {
		if piece == "" || n < 0 || n*len(piece) > 4<<20 {
			return
		}
		text := strings.Repeat(piece, n)
		got := capMCP(state, tool.Call{SessionID: "fuzz", CallID: "c"}, tool.Result{Content: text})
		if c := utf8.RuneCountInString(got.Content); c > mcpMaxChars {
			t.Fatalf("%d characters", c)
		}
		if utf8.ValidString(text) && !utf8.ValidString(got.Content) {
			t.Fatalf("the cut made invalid UTF-8")
		}
		if utf8.RuneCountInString(text) <= mcpMaxChars {
			if got.Content != text {
				t.Fatalf("a text within the cap changed")
			}
			return
		}
		head := []rune(text)[:1000]
		if !strings.HasPrefix(got.Content, string(head)) {
			t.Fatalf("the start is lost")
		}
		b, err := os.ReadFile(filepath.Join(state, "sessions", "fuzz", "mcp-0-0-c.txt"))
		if err != nil || string(b) != text {
			t.Fatalf("spill: %d bytes, %v", len(b), err)
		}
	})
}
