package engine

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harness-dev/harness/host/atomicfile"
	"github.com/harness-dev/harness/host/ownership"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
)

// What the model and the editor get of an MCP tool's result: bash's cap.
const (
	// mcpMaxChars bounds a result's text, the cut's marker included, in
	// characters (Unicode code points), as bash's output is.
	mcpMaxChars = 30_000
	// mcpHeadShare: a cut result keeps the first third of its room from
	// its start and the rest from its end, as bash does.
	mcpHeadShare = 3
)

// capMCP caps the result of MCP call c to mcpMaxChars characters. A
// longer one is written whole (its text, res.Content) to a spill file in
// the session's folder under stateDir, <stateDir>/sessions/<session>/
// mcp-<turn>-<step>-<call>.txt (0600, through host/atomicfile) — the
// folder plugins spill to, which the fs plugin's read tool reaches without
// asking (pluginapi.Call.SessionDir) — and the model is given its first
// third and its last two thirds with a line between them naming the cut,
// the cap and the file. The text blocks and embedded resources' contents
// of a cut result are in the file: its Blocks keep the cut text first,
// then the images and the resources by URI alone. When the file cannot be
// written, the marker says why and the text is cut all the same.
func capMCP(stateDir string, c tool.Call, res tool.Result) tool.Result {
	total := utf8.RuneCountInString(res.Content)
	if total <= mcpMaxChars {
		return res
	}
	where := spillMCP(stateDir, c, res.Content)
	// A marker built with total is at least as long as the final one.
	room := max(mcpMaxChars-utf8.RuneCountInString(mcpCutMarker(total, where)), 0)
	head := room / mcpHeadShare
	tail := room - head
	runes := []rune(res.Content)
	cut := total - head - tail
	res.Content = string(runes[:head]) + mcpCutMarker(cut, where) + string(runes[total-tail:])
	if res.Blocks != nil {
		blocks := []tool.Block{{Kind: tool.BlockText, Text: res.Content}}
		for _, b := range res.Blocks {
			switch b.Kind {
			case tool.BlockImage:
				blocks = append(blocks, b)
			case tool.BlockResource:
				blocks = append(blocks, tool.Block{Kind: tool.BlockResource, URI: b.URI, MIMEType: b.MIMEType})
			}
		}
		res.Blocks = blocks
	}
	return res
}

// mcpCutMarker is the line between a cut result's start and end.
func mcpCutMarker(cut int, where string) string {
	return fmt.Sprintf("\n[… %s characters cut (results are capped at %s characters); the whole result: %s]\n",
		commas(int64(cut)), commas(mcpMaxChars), where)
}

// spillMCP writes text to call c's spill file and says where it is, or
// why there is none.
func spillMCP(stateDir string, c tool.Call, text string) string {
	dir := (&pluginapi.Call{CallRequest: pluginapi.CallRequest{SessionID: c.SessionID}, StateDir: stateDir}).SessionDir()
	if dir == "" {
		return "not kept (the session has no folder)"
	}
	path := filepath.Join(dir, fmt.Sprintf("mcp-%d-%d-%s.txt", c.Turn, c.Step, spillName(c.CallID)))
	if err := ownership.MkdirAll(dir); err != nil {
		return "not kept (" + err.Error() + ")"
	}
	if err := atomicfile.WriteFile(path, []byte(text), 0o600); err != nil {
		return "not kept (" + err.Error() + ")"
	}
	return fmt.Sprintf("%s (%s bytes; read it in parts with the read tool's offset and limit, or search it with grep)", path, commas(int64(len(text))))
}

// spillName makes a call id a file name's part: letters, digits, '_' and
// '-' kept, anything else '_', at most 64 bytes.
func spillName(id string) string {
	b := []byte(id)
	if len(b) > 64 {
		b = b[:64]
	}
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "call"
	}
	return string(b)
}

// commas writes n with thousands separators: 1234567 → 1,234,567.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + commas(-n)
	}
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}
