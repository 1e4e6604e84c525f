package termview

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

// Asker asks on the terminal: y (once), n (reject) or a (always, for
// what the question says: the command prefixes of a command line, or the
// tool). When "always" cannot be scoped it is not offered; for a call
// touching a protected path it is not either, and the question says why
// (permission.Request.ProtectedNote).
type Asker struct {
	view *View
	in   io.Reader

	once  sync.Once
	lines chan string // lines read from in; closed at EOF
}

// NewAsker returns an asker that prompts in view and reads the answers
// from in.
func NewAsker(view *View, in io.Reader) *Asker { return &Asker{view: view, in: in} }

// Ask implements permission.Asker.
func (a *Asker) Ask(ctx context.Context, req permission.Request) (event.Decision, error) {
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
		what = fmt.Sprintf("%s: %s", req.Tool, Clip(cmd, 200))
	} else if len(req.Args) > 0 {
		what = fmt.Sprintf("%s %s", req.Tool, Clip(compactJSON(string(req.Args)), 200))
	}
	if req.Title != "" {
		what = req.Title
	}
	always := req.AlwaysCovers()
	question := fmt.Sprintf("Allow %s? [y]es / [n]o: ", what)
	if always != "" {
		question = fmt.Sprintf("Allow %s? [y]es / [n]o / [a]lways for %s: ", what, always)
	}
	if note := req.ProtectedNote(); note != "" { // why there is no [a]lways
		question = note + "\n" + question
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
