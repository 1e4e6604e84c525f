package termview

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/termsafe"
)

// WatchMCP writes to t.Err one line for each notice of session s's MCP
// servers (engine.Runtime.WatchMCP: a start that failed, a server that
// died or is down, a configuration left out, a server up again) until
// stop is called.
func (t Terminal) WatchMCP(rt *engine.Runtime, s *session.Session) (stop func()) {
	return rt.WatchMCP(s.ID(), func(st engine.MCPStatus) {
		if line := MCPNoticeLine(st); line != "" {
			fmt.Fprintln(t.Err, line) // stdout-ok: the terminal's stderr
		}
	})
}

// MCPNoticeLine is the one line a notice shows as on the terminal: the
// status's lines and the server's last stderr lines joined by " | ",
// escaped (termsafe) and cut to 500 characters; "" for a status that is
// no notice.
func MCPNoticeLine(st mcpclient.Status) string {
	if !st.Notice {
		return ""
	}
	line := st.Text()
	if len(st.Stderr) > 0 {
		first, _, _ := strings.Cut(line, "\n")
		line = first + "; its last stderr: " + strings.Join(st.Stderr, " | ")
	}
	return Clip(termsafe.Line(strings.ReplaceAll(line, "\n", " | ")), 500)
}

// MCPServers prints the configured MCP servers after the plugins' table:
// name, transport, status, what the server calls itself, its tools (by
// their names on the server) and its command or URL, then each one's
// source, for a stdio server its sandbox ("off", or the policy and
// network it is confined to) and, when it is not up, why. The info holds no env or header
// values (mcpclient.ServerInfo); every field, what a server said of
// itself and its stderr in an error included, is a cell (one line, its
// controls and escapes shown escaped by termsafe). Nothing is printed
// when there are no servers.
func MCPServers(w io.Writer, servers []mcpclient.ServerInfo) error {
	if len(servers) == 0 {
		return nil
	}
	_, _ = io.WriteString(w, "\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	_, _ = io.WriteString(tw, "MCP SERVER\tTRANSPORT\tSTATUS\tSERVER\tTOOLS\tCOMMAND/URL\n")
	for _, s := range servers {
		names := make([]string, len(s.Tools))
		for i, t := range s.Tools {
			names[i] = t.Tool
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(s.Name), cell(s.Transport), cell(s.Status),
			dash(cell(strings.TrimSpace(s.ServerName+" "+s.ServerVersion))), dash(cell(strings.Join(names, ","))), dash(cell(s.Where)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, _ = io.WriteString(w, "\n")
	for _, s := range servers {
		line := cell(s.Name) + ": from " + dash(cell(s.Source))
		if s.Sandbox != "" {
			line += "; sandbox " + cell(s.Sandbox)
		}
		if s.Err != "" {
			line += "; " + cell(s.Err)
		}
		_, _ = io.WriteString(w, line+"\n")
	}
	return nil
}
