package termview

import (
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/mcpclient"
)

// TestMCPServersPrintable: what a server says of itself and its stderr in
// an error reach the terminal with their control characters shown
// escaped, on one line, and no servers print nothing.
func TestMCPServersPrintable(t *testing.T) {
	var b strings.Builder
	if err := MCPServers(&b, nil); err != nil || b.Len() != 0 {
		t.Fatalf("no servers printed %q (%v)", b.String(), err)
	}
	err := MCPServers(&b, []mcpclient.ServerInfo{{Name: "x", Transport: "stdio", Status: "up", Where: "/bin/x", Source: "mcp.json", Sandbox: "workspace-write, network off",
		ServerName: "evil\x1b]0;pwned\x07", ServerVersion: "1\n2", Tools: []mcpclient.ServerTool{{Tool: "a"}, {Tool: "b"}}},
		{Name: "y", Transport: "http", Status: "failed", Where: "https://h/mcp", Err: "boom\x1b[2J\nsecond line"}})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("control characters reached the terminal: %q", out)
	}
	for _, want := range []string{`evil\x1b]0;pwned\x07 1 2`, "a,b", "x: from mcp.json; sandbox workspace-write, network off\n", `y: from -; boom\x1b[2J second line` + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestMCPNoticeLine: a notice is one line, the server's stderr joined on
// it, escaped and cut; a status that is no notice prints nothing.
func TestMCPNoticeLine(t *testing.T) {
	long := strings.Repeat("x", 600)
	cases := []struct {
		name string
		st   mcpclient.Status
		want string
	}{
		{"not a notice", mcpclient.Status{Server: "s", State: mcpclient.StatusStarting}, ""},
		{"failed with stderr", mcpclient.Status{Server: "s", State: mcpclient.StatusFailed, Notice: true,
			Err: "MCP server s (from f) not started: initialize: EOF; check it", Stderr: []string{"boom\x1b[2J", "token=[redacted]"}},
			`MCP server s (from f) not started: initialize: EOF; check it; its last stderr: boom\x1b[2J | token=[redacted]`},
		{"up again", mcpclient.Status{Server: "s", State: mcpclient.StatusUp, Notice: true}, "MCP server s is up again"},
		{"invalid, two lines", mcpclient.Status{State: mcpclient.StatusInvalid, Notice: true, Err: "left out: a\nb"}, "left out: a | b"},
		{"cut", mcpclient.Status{State: mcpclient.StatusFailed, Notice: true, Err: long}, long[:499] + "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := MCPNoticeLine(c.st); got != c.want {
				t.Errorf("MCPNoticeLine = %q, want %q", got, c.want)
			}
		})
	}
}
