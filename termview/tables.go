package termview

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/termsafe"
	"github.com/harness-dev/harness/host/toolbox"
)

// Plugins prints the plugins as a table, then the last reload of each and
// each plugin's failure.
func Plugins(w io.Writer, infos []toolbox.PluginInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	_, _ = io.WriteString(tw, "PLUGIN\tVERSION\tSDK\tSHA256\tSTATUS\tTOOLS\tCAPABILITIES\tPATH\n")
	failed := 0
	for _, p := range infos {
		caps := "-"
		if p.Name != "" {
			caps = cell(p.Capabilities.String())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", dash(cell(p.Name)), dash(cell(p.Version)), dash(cell(p.SDK)), short(cell(p.SHA256)),
			cell(string(p.Status)), dash(cell(strings.Join(p.Tools, ","))), caps, cell(p.Path))
		if p.Err != "" {
			failed++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	Reloads(w, infos)
	for _, p := range infos {
		if p.Err != "" {
			fmt.Fprintf(w, "\n%s: %s", cell(p.Path), termsafe.Text(p.Err))
		}
	}
	if failed > 0 {
		_, _ = io.WriteString(w, "\n")
	}
	return nil
}

// ToolSizes prints the tools' schemas as the model is sent them — name,
// description and parameters — in estimated tokens (llm.EstimateTools),
// the largest first, each with its plugin (infos), then their sum: what
// they take of every request's context window.
func ToolSizes(w io.Writer, infos []toolbox.PluginInfo, specs []llm.ToolSpec) error {
	if len(specs) == 0 {
		return nil
	}
	plugin := map[string]string{}
	for _, p := range infos {
		for _, t := range p.Tools {
			plugin[t] = p.Name
		}
	}
	type row struct {
		name   string
		tokens int
	}
	rows := make([]row, len(specs))
	total := 0
	for i, s := range specs {
		rows[i] = row{s.Name, llm.EstimateTools([]llm.ToolSpec{s})}
		total += rows[i].tokens
	}
	slices.SortStableFunc(rows, func(a, b row) int { return b.tokens - a.tokens })
	_, _ = io.WriteString(w, "\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	_, _ = io.WriteString(tw, "TOKENS\tTOOL\tPLUGIN\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t\n", r.tokens, cell(r.name), dash(cell(plugin[r.name])))
	}
	fmt.Fprintf(tw, "%d\t%s\t\t\n", total, "(all, in every request)")
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cell is s for one cell of a table or one line of a listing: its runs of
// white space made one space, every control, escape, bidi or zero-width
// character left shown escaped (termsafe.Line). What plugins, MCP
// servers, session logs and the config file say goes through it.
func cell(s string) string { return termsafe.Line(strings.Join(strings.Fields(s), " ")) }

// Sessions prints sessions as a table, each child session indented under
// its parent; total, when set, renders a session's usage total column.
func Sessions(w io.Writer, list []session.Summary, total func(session.Summary) string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "ID\tUPDATED\tTURNS\tSANDBOX\tCWD\tFIRST PROMPT\n"
	if total != nil {
		head = "ID\tUPDATED\tTURNS\tTOTAL\tSANDBOX\tCWD\tFIRST PROMPT\n"
	}
	_, _ = io.WriteString(tw, head)
	for _, row := range sessionTree(list) {
		s := row.Summary
		turns := fmt.Sprint(s.Turns)
		if total != nil {
			turns += "\t" + cell(total(s))
		}
		turns += "\t" + cell(sandboxCell(s.Sandbox))
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\n", strings.Repeat("  ", row.depth), cell(s.ID),
			s.UpdatedAt.Local().Format(time.DateTime), turns, cell(s.Cwd), Clip(cell(s.FirstPrompt), 60))
	}
	return tw.Flush()
}

// sandboxCell is a session's last sandbox setting in a few characters:
// "workspace-write", "read-only +net" (the network on), "workspace-write
// +list" (a network allow-list), "off", "-" when its log names none (a
// log from before the setting was logged).
func sandboxCell(p event.SandboxPolicy) string {
	switch {
	case p.Mode == "":
		return "-"
	case p.Mode != "off" && p.Network == "on":
		return p.Mode + " +net"
	case p.Mode != "off" && p.Network != "off" && p.Network != "":
		return p.Mode + " +list"
	}
	return p.Mode
}

type sessionRow struct {
	session.Summary
	depth int
}

// sessionTree orders sessions as the store lists them (newest first), with
// each child session right under its parent, indented.
func sessionTree(list []session.Summary) []sessionRow {
	children := make(map[string][]session.Summary)
	known := make(map[string]bool, len(list))
	for _, s := range list {
		known[s.ID] = true
	}
	var roots []session.Summary
	for _, s := range list {
		if s.Parent != "" && known[s.Parent] {
			children[s.Parent] = append(children[s.Parent], s)
		} else {
			roots = append(roots, s)
		}
	}
	var rows []sessionRow
	var walk func(s session.Summary, depth int)
	walk = func(s session.Summary, depth int) {
		rows = append(rows, sessionRow{s, depth})
		for _, c := range children[s.ID] {
			walk(c, depth+1)
		}
	}
	for _, s := range roots {
		walk(s, 0)
	}
	return rows
}

// Reloads shows the last reload of each plugin that has one.
func Reloads(w io.Writer, infos []toolbox.PluginInfo) {
	for _, p := range infos {
		r := p.LastReload
		if r == nil {
			continue
		}
		name := cell(r.Plugin)
		if name == "" {
			name = cell(p.Path)
		}
		if r.Err != "" {
			fmt.Fprintf(w, "%s: last reload %s failed at %s: %s; the previous version kept serving\n",
				name, r.At.Local().Format(time.TimeOnly), cell(r.Stage), cell(r.Err))
			continue
		}
		var stages []string
		for _, s := range r.Stages {
			stages = append(stages, fmt.Sprintf("%s %s", cell(s.Name), s.Elapsed.Round(100*time.Microsecond)))
		}
		fmt.Fprintf(w, "%s: last reload %s (%s %s → %s): serving after %s; %s\n",
			name, r.At.Local().Format(time.TimeOnly), cell(string(r.Change)), short(cell(r.FromSHA)), short(cell(r.ToSHA)),
			r.Serving.Round(time.Millisecond), strings.Join(stages, ", "))
	}
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	if sum == "" {
		return "-"
	}
	return sum
}
