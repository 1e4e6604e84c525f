package termview

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/termsafe"
)

// Asker asks on the terminal: y (once), n (reject) or a (always, for
// what the question says: the command prefixes of a command line, or the
// tool). When "always" cannot be scoped it is not offered; for a call
// touching a protected path it is not either, and the question says why
// (permission.Request.ProtectedNote).
//
// The question shows the whole call it is about — the full command line,
// or the tool and its arguments — through termsafe.Line: every control,
// escape, bidi or zero-width character in it shows escaped, and it is
// never cut. A call longer than shortCall characters, or a plugin's own
// question (whose title is the plugin's words), gets lines of its own
// above the question, with its length. The question's own words and the
// answer keys are the view's last line, drawn by harness (bold on a
// colour terminal) after the call, which cannot move the cursor: nothing
// the model or a plugin wrote can draw them.
type Asker struct {
	view *View
	in   io.Reader

	once  sync.Once
	lines chan string // lines read from in; closed at EOF
	// asking holds a token while a question waits: one question at a
	// time, so that an answer goes to the question on the screen.
	asking chan struct{}
}

// NewAsker returns an asker that prompts in view and reads the answers
// from in.
func NewAsker(view *View, in io.Reader) *Asker { return &Asker{view: view, in: in} }

// Ask implements permission.Asker. Questions asked at once (calls run in
// parallel, a plugin's own question) wait for each other.
func (a *Asker) Ask(ctx context.Context, req permission.Request) (event.Decision, error) {
	a.start()
	select {
	case a.asking <- struct{}{}:
		defer func() { <-a.asking }()
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer a.view.answered()
	question := a.question(req)
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
				if req.AlwaysCovers() != "" {
					return event.AllowAlways, nil
				}
			case "n", "no", "":
				return event.RejectOnce, nil
			}
		}
	}
}

// start starts reading answers, once.
func (a *Asker) start() {
	a.once.Do(func() {
		a.asking = make(chan struct{}, 1)
		a.lines = make(chan string)
		go func() { // reads until EOF; a line nobody waits for is dropped with the process
			defer close(a.lines)
			sc := bufio.NewScanner(a.in)
			for sc.Scan() {
				a.lines <- sc.Text()
			}
		}()
	})
}

// shortCall is the length in characters up to which a call is shown on
// the question's line.
const shortCall = 60

// question composes what Ask shows of req (see Asker).
func (a *Asker) question(req permission.Request) string {
	v := a.view
	raw, kind := req.Tool, "call"
	if cmd := permission.Command(req.Args); cmd != "" {
		raw, kind = cmd, "command"
	} else if len(req.Args) > 0 {
		raw = req.Tool + " " + compactJSON(string(req.Args))
	}
	call := foldSpace(termsafe.Line(raw))
	keys := "[y]es / [n]o: "
	if always := req.AlwaysCovers(); always != "" {
		keys = "[y]es / [n]o / [a]lways for " + termsafe.Line(always) + ": "
	}
	var b strings.Builder
	if note := req.ProtectedNote(); note != "" { // why there is no [a]lways
		b.WriteString(termsafe.Line(note) + "\n")
	}
	switch {
	case req.Title != "":
		b.WriteString(v.style(bold, termsafe.Line(req.Title)) + "\n")
		fmt.Fprintf(&b, "    %s\n", call)
		b.WriteString(v.style(bold, "Allow it? "+keys))
	case utf8.RuneCountInString(call) > shortCall:
		who := req.Tool + " " + kind
		b.WriteString(v.style(bold, fmt.Sprintf("%s, %d characters, in full:", termsafe.Line(who), utf8.RuneCountInString(raw))) + "\n")
		fmt.Fprintf(&b, "    %s\n", call)
		b.WriteString(v.style(bold, fmt.Sprintf("Allow this %s? %s", termsafe.Line(who), keys)))
	case kind == "command":
		b.WriteString(v.style(bold, "Allow "+termsafe.Line(req.Tool)+": ") + call + v.style(bold, "? "+keys))
	default:
		b.WriteString(v.style(bold, "Allow ") + call + v.style(bold, "? "+keys))
	}
	return b.String()
}

// foldSpace shows a run of more than 16 spaces (any Unicode space) as
// "⟨N spaces⟩": thousands of them would push the start of a call (its
// `rm -rf ~ #`) off the screen, above a harmless-looking tail.
func foldSpace(s string) string {
	const most = 16
	var b strings.Builder
	start, n := 0, 0 // the run: s[start:i], n characters
	for i, r := range s {
		if unicode.IsSpace(r) {
			if n == 0 {
				start = i
			}
			n++
			continue
		}
		foldRun(&b, s[start:i], n, most)
		n = 0
		b.WriteRune(r)
	}
	foldRun(&b, s[start:], n, most)
	return b.String()
}

func foldRun(b *strings.Builder, run string, n, most int) {
	switch {
	case n > most:
		fmt.Fprintf(b, "⟨%d spaces⟩", n)
	case n > 0:
		b.WriteString(run)
	}
}
