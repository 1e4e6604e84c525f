package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/termview"
)

func cmdSessions(_ context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("sessions", std.err, "harness sessions [flags]")
	c := bindConfig(fs, e)
	if code, done := parseFlags(fs, args); done {
		return code, nil
	}
	dir, err := c.stateDir(e)
	if err != nil {
		return exitFailed, err
	}
	store := &session.Store{Dir: filepath.Join(dir, "sessions")}
	list, err := store.List()
	if err != nil {
		return exitFailed, err
	}
	if len(list) == 0 {
		fmt.Fprintf(std.err, "no sessions in %s yet: start one with harness run PROMPT, or try harness demo\n", store.Dir)
		return exitOK, nil
	}
	tw := tabwriter.NewWriter(std.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tTURNS\tCWD\tFIRST PROMPT")
	for _, row := range sessionTree(list) {
		s := row.Summary
		fmt.Fprintf(tw, "%s%s\t%s\t%d\t%s\t%s\n", strings.Repeat("  ", row.depth), s.ID,
			s.UpdatedAt.Local().Format(time.DateTime), s.Turns, s.Cwd, termview.Clip(strings.Join(strings.Fields(s.FirstPrompt), " "), 60))
	}
	return exitOK, tw.Flush()
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
