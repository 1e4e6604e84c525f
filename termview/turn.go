package termview

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/termsafe"
)

// Exit statuses of a turn run on the terminal (harness run documents them
// with the command line's own, 2 for usage).
const (
	ExitOK        = 0
	ExitFailed    = 1   // the turn or the command failed
	ExitStopped   = 3   // the turn ended early: step limit, token limit, refusal
	ExitBudget    = 4   // a budget of the run ran out (agent.Loop.Budget)
	ExitCancelled = 130 // Ctrl-C (harness reports SIGHUP, SIGTERM as 129, 143)
)

// Terminal runs turns of an engine.Runtime on a terminal: it renders them
// on Out, asks about tool calls on In when In is a terminal (else the
// policy's questions are refused), and writes its notes to Err. Color
// allows ANSI styles on those streams that are terminals.
type Terminal struct {
	In       io.Reader
	Out, Err io.Writer
	Color    bool
	// Limit, when set, adjusts the loop of a turn of s before it runs
	// (harness run's budgets); its error fails the turn.
	Limit func(loop *agent.Loop, s *session.Session) error
}

// Turn runs one turn of s on text with rt (a slash command runs it:
// engine.Runtime.Prompt), rendering it on t.Out, and returns the exit
// status of its outcome with a one-line reason (nil when it completed).
func (t Terminal) Turn(ctx context.Context, rt *engine.Runtime, s *session.Session, text string) (int, error) {
	loop, err := rt.Loop(s.Cwd())
	if err != nil {
		return ExitFailed, err
	}
	if t.Limit != nil {
		if err := t.Limit(loop, s); err != nil {
			return ExitFailed, err
		}
	}
	view := New(t.Out, s, IsTerminal(t.Out) && t.Color)
	var asker permission.Asker
	if IsTerminal(t.In) {
		asker = NewAsker(view, t.In)
	}
	stop := view.Follow()
	out := rt.Prompt(ctx, s, loop, event.Text(text), view, asker)
	stop()
	switch out.Reason {
	case event.ReasonCompleted:
		return ExitOK, nil
	case event.ReasonCancelled:
		return ExitCancelled, fmt.Errorf("cancelled: the turn was stopped and logged as cancelled")
	case event.ReasonMaxSteps:
		steps := "steps"
		if loop.MaxSteps == 1 {
			steps = "step"
		}
		return ExitStopped, fmt.Errorf("stopped after %d %s (--max-steps); continue the session to let the model go on", loop.MaxSteps, steps)
	case event.ReasonBudget:
		return ExitBudget, fmt.Errorf("stopped: the next step would have passed the budget; continue the session with a larger one")
	case event.ReasonMaxTokens:
		return ExitStopped, fmt.Errorf("stopped: the model reached its output token limit")
	case event.ReasonRefusal:
		return ExitStopped, fmt.Errorf("stopped: the model refused to continue")
	}
	if out.Err != nil {
		return ExitFailed, out.Err
	}
	return ExitFailed, fmt.Errorf("the turn ended: %s", out.Reason)
}

// Header writes to t.Err the line a turn of s starts with: the session,
// its permission mode, the sandbox its bash commands run under — "off"
// stated plainly, and "not enforced" where the kernel has none (not
// Linux) — and, when the window is known, the fixed part of it (system
// prompt and tools: "fixed ~3120/8192 tokens"). Dim on a terminal. When
// the fixed part passes half the window, one warning line follows,
// naming the biggest tools (engine.Fixed.Warning).
func (t Terminal) Header(rt *engine.Runtime, s *session.Session) {
	line := fmt.Sprintf("session %s · mode %s · %s", termsafe.Line(s.ID()), rt.SessionMode(s), termsafe.Line(SandboxLine(rt.SessionSandbox(s), runtime.GOOS)))
	fixed, err := rt.FixedContext(context.Background(), s)
	if err == nil && fixed.Window > 0 {
		line += fmt.Sprintf(" · fixed ~%d/%d tokens", fixed.Total(), fixed.Window)
	}
	if t.Color && IsTerminal(t.Err) {
		line = "\x1b[2m" + line + "\x1b[0m"
	}
	fmt.Fprintln(t.Err, line) // stdout-ok: the terminal's stderr
	if w := fixed.Warning(); w != "" {
		fmt.Fprintln(t.Err, termsafe.Line(w)) // stdout-ok: the terminal's stderr
	}
}

// SandboxLine is the sandbox setting sb as the header shows it on
// operating system goos: "sandbox workspace-write, network off";
// "sandbox off: commands run with your rights"; with "(not enforced on
// darwin)" where commands run unsandboxed.
func SandboxLine(sb confine.Setting, goos string) string {
	if sb.String() == "off" {
		return "sandbox off: commands run with your rights"
	}
	line := "sandbox " + sb.String()
	if goos != "linux" {
		line += " (not enforced on " + goos + ")"
	}
	return line
}

// Compact compacts the history of s now with rt (harness run --compact),
// showing it on t.Out as one line, and returns the exit status with a
// one-line reason (nil when it completed).
func (t Terminal) Compact(ctx context.Context, rt *engine.Runtime, s *session.Session) (int, error) {
	view := New(t.Out, s, IsTerminal(t.Out) && t.Color)
	stop := view.Follow()
	out := rt.Compact(ctx, s, nil, view)
	stop()
	switch {
	case out.Reason == event.ReasonCancelled:
		return ExitCancelled, fmt.Errorf("cancelled: the compaction was stopped; the history is unchanged")
	case out.Err != nil:
		return ExitFailed, fmt.Errorf("compact session %s: %w", s.ID(), out.Err)
	}
	return ExitOK, nil
}

// Finish writes to t.Err the usage line of s since seq from (dim on a
// terminal; none when the provider reported no usage) and how to continue
// the session.
func (t Terminal) Finish(rt *engine.Runtime, s *session.Session, from int64) {
	if line := termsafe.Line(UsageLine(rt.Usage(s, from))); line != "" { // the currency is the config file's
		if t.Color && IsTerminal(t.Err) {
			line = "\x1b[2m" + line + "\x1b[0m"
		}
		fmt.Fprintln(t.Err, line) // stdout-ok: the terminal's stderr
	}
	id := termsafe.Line(s.ID())
	fmt.Fprintf(t.Err, "session %s · continue with: harness run --session %s PROMPT\n", id, id)
}

// IsTerminal reports whether a stream is a terminal: a file that is a
// character device and, where the system can tell, answers the terminal
// ioctl (/dev/null is a character device but no terminal).
func IsTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && isTTY(f)
}
