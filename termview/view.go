package termview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/termsafe"
)

// Source is what the terminal view reads from a session.
type Source interface {
	Follow(ctx context.Context, from int64) iter.Seq[event.Event]
	Events() []event.Event
}

// View renders one turn in the terminal: the answer as it streams, tool
// calls and results compactly, and the todo list as a checklist whenever it
// changes. Deltas arrive through the agent.Live methods; durable events from
// following the session. Both go through one cursor under mu, so the view
// shows events in log order and each exactly once.
//
// Everything the view shows of what others wrote — the model's text and
// thinking, tools' titles, arguments, live output and results, diffs, todo
// items — goes through host/termsafe first (streams through a
// termsafe.Stream each, so an escape cut between deltas is caught too):
// the only escapes the view writes are its own styles, and nothing it
// shows can move the cursor, erase or draw over a line.
type View struct {
	out   io.Writer // the terminal
	src   Source
	color bool

	mu sync.Mutex // guards the fields below
	// w is where the view writes: out, or held while a question waits for
	// its answer, so that the question stays the last thing on the screen.
	w      io.Writer
	held   *bytes.Buffer
	cursor int64 // next event seq to render
	mode   byte  // 't' text, 'r' reasoning, 0 at the start of a line
	// quiet are the read and search calls not shown yet, by call id: each
	// shows as one line once its result is in.
	quiet map[string]event.ToolCall
	// text and reasoning filter the model's deltas; progress a tool's
	// live output, by call id, until its result.
	text, reasoning termsafe.Stream
	progress        map[string]*termsafe.Stream
	// watching renders what a live turn streams as deltas from the logged
	// events instead: the prompt, the model's text and thinking, the
	// turn's end (NewWatcher).
	watching bool
}

// New returns a view of src writing to w, with ANSI styles when color
// is set; it renders what src logs after now.
func New(w io.Writer, src Source, color bool) *View {
	return &View{out: w, w: w, src: src, color: color, cursor: int64(len(src.Events()))}
}

// NewWatcher returns a view of a session another process runs (harness
// attach): it has no deltas, so it renders the logged prompts, answers,
// thinking and turn ends too.
func NewWatcher(w io.Writer, src Source, color bool) *View {
	v := New(w, src, color)
	v.watching = true
	return v
}

// Follow renders events as they are appended until stop is called; stop
// renders whatever is left and returns when the view is complete.
func (v *View) Follow() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range v.src.Follow(ctx, v.startSeq()) {
			v.mu.Lock()
			v.renderLocked(ev)
			v.mu.Unlock()
		}
	}()
	return func() {
		v.mu.Lock()
		v.catchUpLocked()
		v.endLineLocked()
		v.mu.Unlock()
		cancel()
		<-done
	}
}

func (v *View) startSeq() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cursor
}

// TextDelta implements agent.Live.
func (v *View) TextDelta(_, text string) { v.delta('t', text) }

// ReasoningDelta implements agent.Live.
func (v *View) ReasoningDelta(_, text string) { v.delta('r', text) }

func (v *View) delta(mode byte, text string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.catchUpLocked()
	v.streamLocked(mode, text)
}

// streamLocked writes a piece of the answer's text (mode 't') or thinking
// ('r'), starting its line when the mode changes.
func (v *View) streamLocked(mode byte, text string) {
	if v.mode != mode {
		v.endLineLocked()
		if mode == 'r' {
			fmt.Fprint(v.w, v.style(dim, "thinking: "))
		}
		v.mode = mode
	}
	if mode == 'r' {
		io.WriteString(v.w, v.style(dim, v.reasoning.Next(text)))
		return
	}
	io.WriteString(v.w, v.text.Next(text))
}

// prompt shows a question after everything logged so far; text is the
// question as Asker composed it, styled and filtered. Until answered is
// called, what else the view has to show (a running tool's live output,
// events) is held back, so that the question stays the last thing on the
// screen.
func (v *View) prompt(text string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.held == nil {
		v.catchUpLocked()
		v.endLineLocked()
		v.held = new(bytes.Buffer)
		v.w = v.held
	}
	io.WriteString(v.out, text)
}

// answered shows what was held back while a question waited.
func (v *View) answered() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.held != nil {
		v.out.Write(v.held.Bytes())
		v.held, v.w = nil, v.out
	}
}

// ToolProgress implements agent.ToolProgress: a tool's live output, dimmed
// and indented under its call.
func (v *View) ToolProgress(_, callID, text string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.catchUpLocked()
	v.endLineLocked()
	st := v.progress[callID]
	if st == nil {
		if v.progress == nil {
			v.progress = make(map[string]*termsafe.Stream)
		}
		st = new(termsafe.Stream)
		v.progress[callID] = st
	}
	v.progressLines(st.Next(text))
}

// progressLines shows filtered live output, each line indented and dim.
func (v *View) progressLines(text string) {
	for _, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		io.WriteString(v.w, "    "+v.style(dim, strings.TrimRight(line, "\n"))+"\n")
	}
}

// catchUpLocked renders every logged event the view has not shown yet.
func (v *View) catchUpLocked() {
	evs := v.src.Events()
	for _, ev := range evs[min(int(v.cursor), len(evs)):] {
		v.renderLocked(ev)
	}
}

// endLineLocked ends the line of streamed text, with what its filter
// held back.
func (v *View) endLineLocked() {
	switch v.mode {
	case 't':
		io.WriteString(v.w, v.text.End())
	case 'r':
		io.WriteString(v.w, v.style(dim, v.reasoning.End()))
	}
	if v.mode != 0 {
		io.WriteString(v.w, "\n")
		v.mode = 0
	}
}

func (v *View) renderLocked(ev event.Event) {
	if ev.Seq < v.cursor {
		return
	}
	v.cursor = ev.Seq + 1
	p, err := ev.Decode()
	if err != nil {
		return // plugin-declared types have no terminal rendering
	}
	switch p := p.(type) {
	case event.ToolCall:
		v.endLineLocked()
		if (p.Kind == "read" || p.Kind == "search") && p.Title != "" {
			if v.quiet == nil {
				v.quiet = make(map[string]event.ToolCall)
			}
			v.quiet[p.CallID] = p
			return
		}
		if p.Title != "" {
			fmt.Fprintf(v.w, "%s %s\n", v.style(bold, "→"), v.style(bold, Clip(termsafe.Line(p.Title), 120)))
		} else {
			fmt.Fprintf(v.w, "%s %s %s\n", v.style(bold, "→"), v.style(bold, termsafe.Line(p.Name)), Clip(termsafe.Line(compactJSON(p.Args)), 100))
		}
		for _, d := range p.Diffs {
			io.WriteString(v.w, v.diff(d))
		}
	case event.ToolResult:
		v.endLineLocked()
		if st := v.progress[p.CallID]; st != nil {
			v.progressLines(st.End())
			delete(v.progress, p.CallID)
		}
		first, more := firstLine(p.Content)
		first = termsafe.Line(first)
		if more {
			first += " …"
		}
		if c, ok := v.quiet[p.CallID]; ok {
			delete(v.quiet, p.CallID)
			title := c.Title
			if p.Title != "" {
				title = p.Title
			}
			title = termsafe.Line(title)
			if p.IsError {
				fmt.Fprintf(v.w, "%s %s %s\n", v.style(bold, "→"), Clip(title, 80), v.style(red, "✗ "+Clip(first, 100)))
			} else {
				fmt.Fprintf(v.w, "%s %s %s\n", v.style(bold, "→"), Clip(title, 120), v.style(dim, "✓"))
			}
			return
		}
		for _, d := range p.Diffs {
			if !p.IsError {
				io.WriteString(v.w, v.diff(d))
			}
		}
		if p.IsError {
			fmt.Fprintf(v.w, "  %s\n", v.style(red, "✗ "+Clip(first, 120)))
		} else {
			fmt.Fprintf(v.w, "  %s\n", v.style(dim, "✓ "+Clip(first, 120)))
		}
	case event.TodoWrite:
		v.endLineLocked()
		fmt.Fprint(v.w, checklist(p.Todos))
	case event.AssistantMessage:
		// The text already streamed as deltas; end its line.
		if v.watching {
			v.watchedLocked('r', p.Reasoning)
			v.watchedLocked('t', p.Text)
		}
		v.endLineLocked()
	case event.UserMessage:
		if v.watching {
			v.endLineLocked()
			for _, c := range p.Content {
				if c.Type == event.ContentText {
					fmt.Fprintf(v.w, "%s %s\n", v.style(bold, "›"), Clip(termsafe.Line(c.Text), 200))
				}
			}
		}
	case event.TurnEnd:
		if v.watching {
			v.endLineLocked()
			line := "turn " + string(p.Reason)
			if p.Error != "" {
				line += ": " + termsafe.Line(p.Error)
			}
			fmt.Fprintf(v.w, "%s\n", v.style(dim, line))
		}
	}
}

// watchedLocked renders a logged answer's text (mode 't') or thinking
// ('r') as its deltas would have been.
func (v *View) watchedLocked(mode byte, text string) {
	if text != "" {
		v.streamLocked(mode, text)
	}
}

// checklist renders a todo list: [x] done, [~] in progress, [ ] pending.
func checklist(todos []event.Todo) string {
	var b strings.Builder
	b.WriteString("  todos:\n")
	if len(todos) == 0 {
		b.WriteString("    (empty)\n")
	}
	for _, t := range todos {
		mark := "[ ]"
		switch t.Status {
		case event.TodoCompleted:
			mark = "[x]"
		case event.TodoInProgress:
			mark = "[~]"
		}
		fmt.Fprintf(&b, "    %s %s\n", mark, termsafe.Line(t.Content))
	}
	return b.String()
}

type style int

const (
	dim style = iota
	bold
	red
	green
	cyan
)

func (v *View) style(s style, text string) string {
	if !v.color || text == "" {
		return text
	}
	code := map[style]string{dim: "2", bold: "1", red: "31", green: "32", cyan: "36"}[s]
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// maxDiffLines bounds the lines of a diff the view shows.
const maxDiffLines = 40

// diff renders a change as a short unified diff (3 lines of context,
// indented, at most maxDiffLines), colored when the view is.
func (v *View) diff(d event.Diff) string {
	from := d.Path
	if d.NewFile {
		from = "/dev/null"
	}
	text := udiff.Unified(from, d.Path, d.OldText, d.NewText)
	if text == "" {
		return "    " + v.style(dim, "(no change)") + "\n"
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var b strings.Builder
	shown := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++") {
			continue
		}
		if shown == maxDiffLines {
			fmt.Fprintf(&b, "    %s\n", v.style(dim, fmt.Sprintf("… %d more lines", len(lines)-i)))
			break
		}
		l = Clip(termsafe.Text(strings.TrimSuffix(l, "\r")), 200)
		switch {
		case strings.HasPrefix(l, "@@"):
			l = v.style(cyan, l)
		case strings.HasPrefix(l, "+"):
			l = v.style(green, l)
		case strings.HasPrefix(l, "-"):
			l = v.style(red, l)
		}
		b.WriteString("    " + l + "\n")
		shown++
	}
	return b.String()
}

// compactJSON returns raw JSON without insignificant space, or the text as
// it is when it is not JSON.
func compactJSON(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}

func firstLine(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i], true
	}
	return s, false
}

// Clip cuts s to n runes, marking the cut. It does not filter: clip what
// termsafe made safe.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
