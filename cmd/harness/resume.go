package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/termsafe"
	"github.com/harness-dev/harness/termview"
)

// resumeFlag is --resume: alone, pick a session of this folder; with
// =ID, that session.
type resumeFlag struct {
	set bool
	id  string
}

func (f *resumeFlag) String() string   { return f.id }
func (f *resumeFlag) IsBoolFlag() bool { return true }
func (f *resumeFlag) Set(v string) error {
	f.set = true
	if v == "true" {
		v = ""
	}
	f.id = v
	return nil
}

// maxListed bounds the sessions --resume lists.
const maxListed = 10

// folderSessions are the sessions whose cwd is this process's working
// folder, the latest (by last event) first; sessions that could not be
// read are left out.
func folderSessions(rt *engine.Runtime) ([]session.Summary, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("find the current directory: %w", err)
	}
	all, err := rt.ListSessions()
	if err != nil {
		return nil, fmt.Errorf("list the sessions: %w", err)
	}
	var out []session.Summary
	for _, s := range all {
		if s.Err == nil && sameDir(s.Cwd, wd) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b session.Summary) int { return b.UpdatedAt.Compare(a.UpdatedAt) })
	return out, nil
}

// sameDir reports whether two absolute paths name the same folder, links
// resolved where they can be.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// latestSession is the id of the latest session of this folder
// (--continue).
func latestSession(rt *engine.Runtime) (string, error) {
	ss, err := folderSessions(rt)
	if err != nil {
		return "", err
	}
	if len(ss) == 0 {
		return "", fmt.Errorf("no session to continue in this folder: start one with harness run PROMPT: %w", errUsage)
	}
	return ss[0].ID, nil
}

// pickSession lists the recent sessions of this folder on std.err and
// reads the number of one from std.in, a terminal; without a terminal, or
// with no session, it fails with the list (--resume).
func pickSession(rt *engine.Runtime, std stdio) (string, error) {
	ss, err := folderSessions(rt)
	if err != nil {
		return "", err
	}
	if len(ss) == 0 {
		return "", fmt.Errorf("no session to resume in this folder: start one with harness run PROMPT: %w", errUsage)
	}
	if len(ss) > maxListed {
		ss = ss[:maxListed]
	}
	var b strings.Builder
	for i, s := range ss {
		fmt.Fprintf(&b, "%2d. %s  %s  %d turn(s)  %s\n", i+1, s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.Turns, termsafe.Line(s.FirstPrompt))
	}
	fmt.Fprint(std.err, b.String())
	if !termview.IsTerminal(std.in) {
		return "", fmt.Errorf("--resume needs a terminal to pick from the sessions listed above: continue one with --resume=ID or --session ID, the latest with --continue: %w", errUsage)
	}
	fmt.Fprintf(std.err, "resume which (1-%d)? ", len(ss))
	ans, err := bufio.NewReader(std.in).ReadString('\n')
	if err != nil && ans == "" {
		return "", errors.New("no session picked")
	}
	n, err := strconv.Atoi(strings.TrimSpace(ans))
	if err != nil || n < 1 || n > len(ss) {
		return "", fmt.Errorf("%q is not a number from 1 to %d: %w", strings.TrimSpace(ans), len(ss), errUsage)
	}
	return ss[n-1].ID, nil
}
