package termview

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/harness-dev/harness/host/mcpclient"
)

// MCPServers prints the configured MCP servers after the plugins' table:
// name, transport, status, what the server calls itself, its tools (by
// their names on the server) and its command or URL, then each one's
// source and, when it is not up, why. The info holds no env or header
// values (mcpclient.ServerInfo); what a server said of itself and its
// stderr in an error are printed without control characters. Nothing is
// printed when there are no servers.
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", printable(s.Name), s.Transport, s.Status,
			dash(printable(strings.TrimSpace(s.ServerName+" "+s.ServerVersion))), dash(printable(strings.Join(names, ","))), dash(printable(s.Where)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, _ = io.WriteString(w, "\n")
	for _, s := range servers {
		line := printable(s.Name) + ": from " + dash(printable(s.Source))
		if s.Err != "" {
			line += "; " + printable(s.Err)
		}
		_, _ = io.WriteString(w, line+"\n")
	}
	return nil
}

// printable is s on one line with its control characters (a hostile
// server's terminal escapes) replaced by "?".
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, strings.Join(strings.Fields(s), " "))
}
