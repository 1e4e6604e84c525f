package session

import (
	"strings"

	"github.com/harness-dev/harness/host/event"
)

// structure is the turn and step structure of a log as it stands. check
// says whether an event may come next; apply advances past it.
type structure struct {
	next     int64 // the seq of the next event
	lastTurn int   // the last turn started, 0 if none
	turn     int   // the open turn, 0 if none
	step     int   // the open step, 0 if none
	lastStep int   // the last step started in the open turn
	// calls are the tool calls of the open turn that have no result yet,
	// in the order they were made.
	calls []pendingCall
}

type pendingCall struct {
	id, name string
	step     int
}

// check reports why an event of type t with payload p (nil for a type
// outside the host's vocabulary) may not come next.
func (s *structure) check(t event.Type, p event.Payload) error {
	switch p := p.(type) {
	case event.TurnStart:
		if s.turn != 0 {
			return invalid(t, "turn %d is still open", s.turn)
		}
		if p.Turn != s.lastTurn+1 {
			return invalid(t, "turn %d, want %d", p.Turn, s.lastTurn+1)
		}
	case event.TurnEnd:
		if err := s.inTurn(t, p.Turn); err != nil {
			return err
		}
		if s.step != 0 {
			return invalid(t, "step %d is still open; end it first", s.step)
		}
		if p.Reason == "" {
			return invalid(t, "no reason")
		}
	case event.StepStart:
		if err := s.inTurn(t, p.Turn); err != nil {
			return err
		}
		if s.step != 0 {
			return invalid(t, "step %d is still open", s.step)
		}
		if p.Step != s.lastStep+1 {
			return invalid(t, "step %d, want %d", p.Step, s.lastStep+1)
		}
	case event.StepEnd:
		if err := s.inTurn(t, p.Turn); err != nil {
			return err
		}
		if s.step == 0 {
			return invalid(t, "no step is open")
		}
		if p.Step != s.step {
			return invalid(t, "step %d, but step %d is open", p.Step, s.step)
		}
	case event.AssistantMessage:
		return s.inStep(t, p.Turn, p.Step)
	case event.ToolCall:
		if p.CallID == "" {
			return invalid(t, "no callId")
		}
		return s.inStep(t, p.Turn, p.Step)
	case event.ToolResult:
		if p.CallID == "" {
			return invalid(t, "no callId")
		}
		if err := s.inTurn(t, p.Turn); err != nil {
			return err
		}
		// Inside a step a result belongs to it; between steps it may
		// answer a call of a step already run in this turn.
		if s.step != 0 && p.Step != s.step {
			return invalid(t, "step %d, but step %d is open", p.Step, s.step)
		}
		if s.step == 0 && (p.Step < 1 || p.Step > s.lastStep) {
			return invalid(t, "step %d has not run in turn %d", p.Step, s.turn)
		}
	case event.Permission:
		if p.CallID == "" || p.Tool == "" {
			return invalid(t, "no callId or tool")
		}
		switch p.Decision {
		case event.AllowOnce, event.AllowAlways, event.RejectOnce, event.RejectAlways:
		default:
			return invalid(t, "unknown decision %q", p.Decision)
		}
		return s.inStep(t, p.Turn, p.Step)
	case event.ConfigOption:
		// A setting switched for the steps that follow: between turns, or
		// during one (it applies from the next step).
		if p.ID == "" || p.Value == "" {
			return invalid(t, "no id or value")
		}
	case event.PermissionMode:
		// Anywhere: at creation, between turns, or while a turn runs.
		if p.Mode == "" {
			return invalid(t, "no mode")
		}
	case event.SandboxPolicy:
		// Anywhere, as the mode.
		if p.Mode == "" || p.Network == "" {
			return invalid(t, "no mode or network")
		}
	case event.TodoWrite:
		if s.turn == 0 {
			return invalid(t, "no turn is open")
		}
		return checkTodos(t, p.Todos)
	case event.Compact:
		if err := s.inTurn(t, p.Turn); err != nil {
			return err
		}
		if s.step != 0 {
			return invalid(t, "step %d is open; compact between steps", s.step)
		}
		if p.Summary == "" || p.Reason == "" {
			return invalid(t, "no summary or no reason")
		}
		if p.From < 0 || p.From > p.Keep || p.Keep > s.next {
			return invalid(t, "range %d..%d is not within the log before it (%d events)", p.From, p.Keep, s.next)
		}
	default: // user/message, plugin-declared types
		if s.turn == 0 {
			return invalid(t, "no turn is open")
		}
	}
	return nil
}

// checkTodos holds a todo/write to the todo list's invariants, whichever
// plugin proposed it: every content non-empty and already trimmed, no
// content twice, a known status, at most one item in progress.
func checkTodos(t event.Type, todos []event.Todo) error {
	seen := make(map[string]bool, len(todos))
	inProgress := 0
	for _, td := range todos {
		if td.Content == "" || strings.TrimSpace(td.Content) != td.Content {
			return invalid(t, "content must be non-empty and already trimmed")
		}
		if seen[td.Content] {
			return invalid(t, "repeats content %q", td.Content)
		}
		seen[td.Content] = true
		switch td.Status {
		case event.TodoPending, event.TodoCompleted:
		case event.TodoInProgress:
			inProgress++
		default:
			return invalid(t, "unknown status %q", td.Status)
		}
	}
	if inProgress > 1 {
		return invalid(t, "%d items in progress; at most one is allowed", inProgress)
	}
	return nil
}

func (s *structure) inTurn(t event.Type, turn int) error {
	if s.turn == 0 {
		return invalid(t, "no turn is open")
	}
	if turn != s.turn {
		return invalid(t, "turn %d, but turn %d is open", turn, s.turn)
	}
	return nil
}

func (s *structure) inStep(t event.Type, turn, step int) error {
	if err := s.inTurn(t, turn); err != nil {
		return err
	}
	if s.step == 0 {
		return invalid(t, "no step is open")
	}
	if step != s.step {
		return invalid(t, "step %d, but step %d is open", step, s.step)
	}
	return nil
}

// apply advances past a checked event.
func (s *structure) apply(p event.Payload) {
	s.next++
	switch p := p.(type) {
	case event.TurnStart:
		s.turn, s.lastTurn = p.Turn, p.Turn
		s.step, s.lastStep = 0, 0
		s.calls = s.calls[:0]
	case event.TurnEnd:
		s.turn = 0
		s.calls = s.calls[:0]
	case event.StepStart:
		s.step, s.lastStep = p.Step, p.Step
	case event.StepEnd:
		s.step = 0
	case event.AssistantMessage:
		for _, c := range p.ToolCalls {
			s.addCall(c.ID, c.Name, p.Step)
		}
	case event.ToolCall:
		s.addCall(p.CallID, p.Name, p.Step)
	case event.ToolResult:
		for i, c := range s.calls {
			if c.id == p.CallID {
				s.calls = append(s.calls[:i], s.calls[i+1:]...)
				break
			}
		}
	}
}

// addCall records a call awaiting its result, once: the assistant message
// that requests a call and the tool/call that dispatches it name the same id.
func (s *structure) addCall(id, name string, step int) {
	if id == "" {
		return
	}
	for _, c := range s.calls {
		if c.id == id {
			return
		}
	}
	s.calls = append(s.calls, pendingCall{id: id, name: name, step: step})
}
