package termview

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/toolbox"
)

// Plugins prints the plugins as a table, then the last reload of each and
// each plugin's failure.
func Plugins(w io.Writer, infos []toolbox.PluginInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	_, _ = io.WriteString(tw, "PLUGIN\tVERSION\tSDK\tSHA256\tSTATUS\tTOOLS\tPATH\n")
	failed := 0
	for _, p := range infos {
		name, sum := p.Name, p.SHA256
		if name == "" {
			name = "-"
		}
		if len(sum) > 12 {
			sum = sum[:12]
		}
		if sum == "" {
			sum = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, dash(p.Version), dash(p.SDK), sum, p.Status, dash(strings.Join(p.Tools, ",")), p.Path)
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
			fmt.Fprintf(w, "\n%s: %s", p.Path, p.Err)
		}
	}
	if failed > 0 {
		_, _ = io.WriteString(w, "\n")
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Sessions prints sessions as a table, each child session indented under
// its parent; total, when set, renders a session's usage total column.
func Sessions(w io.Writer, list []session.Summary, total func(session.Summary) string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "ID\tUPDATED\tTURNS\tCWD\tFIRST PROMPT\n"
	if total != nil {
		head = "ID\tUPDATED\tTURNS\tTOTAL\tCWD\tFIRST PROMPT\n"
	}
	_, _ = io.WriteString(tw, head)
	for _, row := range sessionTree(list) {
		s := row.Summary
		turns := fmt.Sprint(s.Turns)
		if total != nil {
			turns += "\t" + total(s)
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\n", strings.Repeat("  ", row.depth), s.ID,
			s.UpdatedAt.Local().Format(time.DateTime), turns, s.Cwd, Clip(strings.Join(strings.Fields(s.FirstPrompt), " "), 60))
	}
	return tw.Flush()
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
		name := r.Plugin
		if name == "" {
			name = p.Path
		}
		if r.Err != "" {
			fmt.Fprintf(w, "%s: last reload %s failed at %s: %s; the previous version kept serving\n",
				name, r.At.Local().Format(time.TimeOnly), r.Stage, r.Err)
			continue
		}
		var stages []string
		for _, s := range r.Stages {
			stages = append(stages, fmt.Sprintf("%s %s", s.Name, s.Elapsed.Round(100*time.Microsecond)))
		}
		fmt.Fprintf(w, "%s: last reload %s (%s %s → %s): serving after %s; %s\n",
			name, r.At.Local().Format(time.TimeOnly), r.Change, short(r.FromSHA), short(r.ToSHA),
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
