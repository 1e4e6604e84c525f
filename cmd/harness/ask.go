package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
)

// termAsker asks on the terminal: y (once), n (reject) or a (always, for
// what the question says: the command prefixes of a command line, or the
// tool). When "always" cannot be scoped it is not offered.
type termAsker struct {
	view *termView
	in   io.Reader

	once  sync.Once
	lines chan string // lines read from in; closed at EOF
}

// Ask implements permission.Asker.
func (a *termAsker) Ask(ctx context.Context, req permission.Request) (event.Decision, error) {
	a.once.Do(func() {
		a.lines = make(chan string)
		go func() { // reads until EOF; a line nobody waits for is dropped with the process
			defer close(a.lines)
			sc := bufio.NewScanner(a.in)
			for sc.Scan() {
				a.lines <- sc.Text()
			}
		}()
	})
	what := req.Tool
	if cmd := permission.Command(req.Args); cmd != "" {
		what = fmt.Sprintf("%s: %s", req.Tool, clip(cmd, 200))
	} else if len(req.Args) > 0 {
		what = fmt.Sprintf("%s %s", req.Tool, clip(compactJSON(string(req.Args)), 200))
	}
	if req.Title != "" {
		what = req.Title
	}
	always := req.AlwaysCovers()
	question := fmt.Sprintf("Allow %s? [y]es / [n]o: ", what)
	if always != "" {
		question = fmt.Sprintf("Allow %s? [y]es / [n]o / [a]lways for %s: ", what, always)
	}
	for {
		a.view.prompt(question)
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case line, ok := <-a.lines:
			if !ok {
				return event.RejectOnce, nil // stdin closed: nobody will answer
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return event.AllowOnce, nil
			case "a", "always":
				if always != "" {
					return event.AllowAlways, nil
				}
			case "n", "no", "":
				return event.RejectOnce, nil
			}
		}
	}
}
