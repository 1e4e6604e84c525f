package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
)

// memSession is an in-memory Session that enforces the log's structure the
// way host/session does: every event inside the open turn, turns numbered
// from 1, steps nested and numbered from 1, tool/call only for a call of the
// step's assistant/message, one tool/result per tool/call, no step/end or
// turn/end while a call is unanswered. A rejected event is not written.
type memSession struct {
	mu     sync.Mutex
	id     string
	events []event.Event
	msgs   []llm.Message

	lastTurn, openTurn int
	lastStep, openStep int
	answered           bool              // the open step has its assistant/message
	requested          map[string]string // call id → name, from the step's assistant/message
	called, resolved   map[string]bool

	syncedAt int // len(events) at the last Sync
	syncs    int

	// fail, when set, may refuse an event before it is checked and written.
	fail func(e event.Event) error
	// failSync, when set, is Sync's error.
	failSync error
	// drop discards events once checked (benchmarks); Messages still work.
	drop bool
}

func newMemSession() *memSession { return &memSession{id: "s-test"} }

func (s *memSession) ID() string  { return s.id }
func (s *memSession) Cwd() string { return "/work" }

func (s *memSession) LastTurn() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastTurn
}

func (s *memSession) Messages() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.msgs[:len(s.msgs):len(s.msgs)]
}

func (s *memSession) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncs++
	if s.failSync != nil {
		return s.failSync
	}
	s.syncedAt = len(s.events)
	return nil
}

var fixedTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func (s *memSession) Append(p event.Payload) (event.Event, error) {
	data, err := event.Encode(p)
	if err != nil {
		return event.Event{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := event.Event{Seq: int64(len(s.events)), Time: fixedTime, Type: p.EventType(), Data: data}
	if s.fail != nil {
		if err := s.fail(e); err != nil {
			return event.Event{}, err
		}
	}
	if err := s.check(p); err != nil {
		return event.Event{}, fmt.Errorf("session: %s: %w", p.EventType(), err)
	}
	s.apply(p)
	s.write(e)
	return e, nil
}

func (s *memSession) AppendRaw(t event.Type, data json.RawMessage) (event.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := event.Event{Seq: int64(len(s.events)), Time: fixedTime, Type: t, Data: data}
	if s.fail != nil {
		if err := s.fail(e); err != nil {
			return event.Event{}, err
		}
	}
	if err := s.checkRaw(e); err != nil {
		return event.Event{}, fmt.Errorf("session: %s: %w", t, err)
	}
	s.write(e)
	return e, nil
}

// AppendProposed appends a checked event as AppendRaw does.
func (s *memSession) AppendProposed(p event.Proposed) (event.Event, error) {
	return s.AppendRaw(p.Type(), p.Data())
}

func (s *memSession) write(e event.Event) {
	if !s.drop {
		s.events = append(s.events, e)
	}
}

func (s *memSession) check(p event.Payload) error {
	if _, ok := p.(event.TurnStart); !ok && s.openTurn == 0 {
		return errors.New("no open turn")
	}
	inStep := func(turn, step int) error {
		switch {
		case turn != s.openTurn:
			return fmt.Errorf("turn %d, but turn %d is open", turn, s.openTurn)
		case s.openStep == 0:
			return errors.New("no open step")
		case step != s.openStep:
			return fmt.Errorf("step %d, but step %d is open", step, s.openStep)
		}
		return nil
	}
	unanswered := func() error {
		for id := range s.requested {
			if !s.resolved[id] {
				return fmt.Errorf("call %s has no tool/result", id)
			}
		}
		return nil
	}
	switch p := p.(type) {
	case event.TurnStart:
		if s.openTurn != 0 {
			return fmt.Errorf("turn %d is still open", s.openTurn)
		}
		if p.Turn != s.lastTurn+1 {
			return fmt.Errorf("turn %d after turn %d", p.Turn, s.lastTurn)
		}
	case event.TurnEnd:
		switch {
		case p.Turn != s.openTurn:
			return fmt.Errorf("turn %d, but turn %d is open", p.Turn, s.openTurn)
		case s.openStep != 0:
			return fmt.Errorf("step %d is still open", s.openStep)
		case p.Reason == "":
			return errors.New("no reason")
		case p.Reason == event.ReasonError && p.Error == "":
			return errors.New("reason error without a message")
		case p.Reason != event.ReasonError && p.Error != "":
			return errors.New("a message without reason error")
		case strings.Contains(p.Error, "\n"):
			return errors.New("message spans lines")
		}
	case event.StepStart:
		switch {
		case p.Turn != s.openTurn:
			return fmt.Errorf("turn %d, but turn %d is open", p.Turn, s.openTurn)
		case s.openStep != 0:
			return fmt.Errorf("step %d is still open", s.openStep)
		case p.Step != s.lastStep+1:
			return fmt.Errorf("step %d after step %d", p.Step, s.lastStep)
		}
	case event.StepEnd:
		if err := inStep(p.Turn, p.Step); err != nil {
			return err
		}
		return unanswered()
	case event.UserMessage:
		if s.openStep != 0 {
			return errors.New("inside a step")
		}
	case event.AssistantMessage:
		if err := inStep(p.Turn, p.Step); err != nil {
			return err
		}
		if s.answered {
			return errors.New("second assistant/message in the step")
		}
		if p.Text == "" && p.Reasoning == "" && len(p.ToolCalls) == 0 && p.Usage == nil {
			return errors.New("empty")
		}
		seen := map[string]bool{}
		for _, c := range p.ToolCalls {
			if c.ID == "" || seen[c.ID] {
				return fmt.Errorf("bad or duplicate call id %q", c.ID)
			}
			seen[c.ID] = true
		}
	case event.ToolCall:
		if err := inStep(p.Turn, p.Step); err != nil {
			return err
		}
		switch name, ok := s.requested[p.CallID]; {
		case !ok:
			return fmt.Errorf("call %s is not in the step's assistant/message", p.CallID)
		case name != p.Name:
			return fmt.Errorf("call %s is %s, not %s", p.CallID, name, p.Name)
		case s.called[p.CallID]:
			return fmt.Errorf("call %s logged twice", p.CallID)
		}
	case event.ToolResult:
		if err := inStep(p.Turn, p.Step); err != nil {
			return err
		}
		switch {
		case !s.called[p.CallID]:
			return fmt.Errorf("call %s has no tool/call", p.CallID)
		case s.resolved[p.CallID]:
			return fmt.Errorf("call %s has a tool/result already", p.CallID)
		case p.IsError && !strings.HasPrefix(p.Content, "Error: "):
			return fmt.Errorf("error result %q does not start with \"Error: \"", p.Content)
		}
	default:
		return fmt.Errorf("the loop appends no %T", p)
	}
	return nil
}

// checkRaw accepts what a plugin may propose: a well-formed todo/write or
// any non-host type with a JSON object, inside a step.
func (s *memSession) checkRaw(e event.Event) error {
	if s.openStep == 0 {
		return errors.New("no open step")
	}
	if e.Type == event.TypeTodoWrite {
		p, err := e.Decode()
		if err != nil {
			return err
		}
		for _, td := range p.(event.TodoWrite).Todos {
			switch td.Status {
			case event.TodoPending, event.TodoInProgress, event.TodoCompleted:
			default:
				return fmt.Errorf("todo %q has status %q", td.Content, td.Status)
			}
		}
		return nil
	}
	if event.IsKnown(e.Type) {
		return errors.New("host type proposed by a tool")
	}
	var obj map[string]any
	if err := json.Unmarshal(e.Data, &obj); err != nil {
		return fmt.Errorf("data is not a JSON object: %w", err)
	}
	return nil
}

// apply updates the structure and the projection after a checked event.
func (s *memSession) apply(p event.Payload) {
	switch p := p.(type) {
	case event.TurnStart:
		s.openTurn, s.lastTurn, s.lastStep = p.Turn, p.Turn, 0
	case event.TurnEnd:
		s.openTurn = 0
	case event.StepStart:
		s.openStep, s.lastStep, s.answered = p.Step, p.Step, false
		s.requested, s.called, s.resolved = map[string]string{}, map[string]bool{}, map[string]bool{}
	case event.StepEnd:
		s.openStep = 0
	case event.UserMessage:
		var b strings.Builder
		for _, c := range p.Content {
			b.WriteString(c.Text)
		}
		s.msgs = append(s.msgs, llm.Message{Role: llm.RoleUser, Text: b.String()})
	case event.AssistantMessage:
		s.answered = true
		m := llm.Message{Role: llm.RoleAssistant, Text: p.Text, Reasoning: p.Reasoning}
		for _, c := range p.ToolCalls {
			s.requested[c.ID] = c.Name
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		if m.Text != "" || m.Reasoning != "" || len(m.ToolCalls) > 0 {
			s.msgs = append(s.msgs, m)
		}
	case event.ToolCall:
		s.called[p.CallID] = true
	case event.ToolResult:
		s.resolved[p.CallID] = true
		s.msgs = append(s.msgs, llm.Message{Role: llm.RoleTool, Text: p.Content, ToolCallID: p.CallID, IsError: p.IsError})
	}
}

// checkClosed fails t unless the log has no open turn and was synced after
// its last event.
func (s *memSession) checkClosed(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.openTurn != 0 {
		t.Errorf("turn %d left open", s.openTurn)
	}
	if s.syncedAt != len(s.events) {
		t.Errorf("synced at event %d of %d: the end of the turn is not durable", s.syncedAt, len(s.events))
	}
}

// summary renders the log one short line per event, for diffs.
func (s *memSession) summary() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.events))
	for i, e := range s.events {
		out[i] = summarize(e)
	}
	return out
}

func summarize(e event.Event) string {
	p, err := e.Decode()
	if err != nil {
		return fmt.Sprintf("%s %s", e.Type, e.Data)
	}
	switch p := p.(type) {
	case event.TurnStart:
		return fmt.Sprintf("turn/start %d", p.Turn)
	case event.TurnEnd:
		s := fmt.Sprintf("turn/end %d %s", p.Turn, p.Reason)
		if p.Error != "" {
			s += ": " + p.Error
		}
		return s
	case event.StepStart:
		return fmt.Sprintf("step/start %d", p.Step)
	case event.StepEnd:
		return fmt.Sprintf("step/end %d", p.Step)
	case event.UserMessage:
		var b strings.Builder
		for _, c := range p.Content {
			b.WriteString(c.Text)
		}
		return "user: " + b.String()
	case event.AssistantMessage:
		s := fmt.Sprintf("assistant %d: %q", p.Step, p.Text)
		for _, c := range p.ToolCalls {
			s += fmt.Sprintf(" %s:%s", c.ID, c.Name)
		}
		if p.Finish != "" {
			s += " " + p.Finish
		}
		return s
	case event.ToolCall:
		return fmt.Sprintf("tool/call %s %s", p.CallID, p.Name)
	case event.ToolResult:
		s := fmt.Sprintf("tool/result %s %q", p.CallID, p.Content)
		if p.IsError {
			s += " error"
		}
		return s
	case event.TodoWrite:
		return fmt.Sprintf("todo/write %d", len(p.Todos))
	}
	return string(e.Type)
}

// lastOf returns the payload of the last event of type T.
func lastOf[T event.Payload](t *testing.T, s *memSession) T {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	for i := len(s.events) - 1; i >= 0; i-- {
		if s.events[i].Type == zero.EventType() {
			p, err := s.events[i].Decode()
			if err != nil {
				t.Fatal(err)
			}
			return p.(T)
		}
	}
	t.Fatalf("no %s event", zero.EventType())
	return zero
}

func (s *memSession) Always(tool string) []event.Permission {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []event.Permission
	for _, e := range s.events {
		if e.Type != event.TypePermission {
			continue
		}
		p, err := e.Decode()
		if err != nil {
			continue
		}
		if pe := p.(event.Permission); pe.Tool == tool && pe.Source != "session" &&
			(pe.Decision == event.AllowAlways || pe.Decision == event.RejectAlways) {
			out = append(out, pe)
		}
	}
	return out
}
