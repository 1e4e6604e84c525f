package session

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/llm"
)

// Session is one open session: its log, held locked, and its projections.
// Get one from [Store.Create] or [Store.Open]; Close it when done.
type Session struct {
	log      Log
	header   eventlog.Header
	now      func() time.Time
	recovery Recovery
	// blobs is the folder of the session's blobs (blobs.go); "" for none.
	blobs string
	// blobBackend keeps the blobs when the backend does (BlobBackend).
	blobBackend BlobBackend
	// index keeps the session's summary when the backend does
	// (IndexBackend).
	index IndexBackend

	mu sync.Mutex
	// mu guards the fields below.
	closed bool
	events []event.Event
	msgs   []llm.Message
	// seqs holds, for each message of msgs, the seq of the surface event
	// it derives from; -1 for the messages a compaction puts first.
	seqs  []int64
	todos []event.Todo
	// lastUser is the last user/message's message and seq (-1 if none).
	lastUser    llm.Message
	lastUserSeq int64
	// usage is the prompt and answer tokens the provider reported for the
	// last step whose answer is in msgs; usageAt is len(msgs) right after
	// that answer, -1 when no usage counts the current history.
	usage, usageAt int
	// limit is the context length a provider stated in an overflow error,
	// as the last compaction recorded it; 0 if none.
	limit int
	// always holds the "always" permission answers the user gave, by tool
	// name, in log order.
	always map[string][]event.Permission
	turns  []Turn
	st     structure
	// wake is closed and cleared on every append and on Close, to wake
	// followers waiting for the next event; nil while none waits.
	wake chan struct{}

	// alwaysKind holds the "always" answers that cover a kind of call
	// (event.Permission.Kind), by kind, in log order.
	alwaysKind map[string][]event.Permission
	// mode is the permission mode of the last permission/mode, "" before
	// any.
	mode string
	// sandbox is the last sandbox/policy event.
	sandbox event.SandboxPolicy
	// sum is what Store.List shows of the log, kept as it grows.
	sum fold
}

// Turn is one turn as the log records it.
type Turn struct {
	Turn int
	// Start is the seq of the turn/start; End that of the turn/end, -1
	// while the turn is open.
	Start, End int64
	// Reason is the turn/end's reason; empty while the turn is open.
	Reason event.Reason
	// Steps counts the steps started in the turn.
	Steps int
}

// Recovery says what Open repaired.
type Recovery struct {
	// Torn is the torn tail cut from the file.
	Torn eventlog.Repair
	// InterruptedTurn is the turn Open closed as interrupted, 0 if none.
	InterruptedTurn int
	// SyntheticResults counts the error tool results Open wrote for calls
	// that had none.
	SyntheticResults int
}

// IsZero reports whether Open repaired nothing.
func (r Recovery) IsZero() bool { return r.Torn.IsZero() && r.InterruptedTurn == 0 }

func (r Recovery) String() string {
	if r.IsZero() {
		return "nothing to recover"
	}
	s := ""
	if !r.Torn.IsZero() {
		s = "torn tail: " + r.Torn.String()
	}
	if r.InterruptedTurn != 0 {
		if s != "" {
			s += "; "
		}
		s += fmt.Sprintf("closed turn %d as interrupted with %d synthetic tool results", r.InterruptedTurn, r.SyntheticResults)
	}
	return s
}

// interruptedResult is the content of a tool result Open writes for a call
// that had none when the process died.
const interruptedResult = "interrupted: no result was recorded"

// ID returns the session id.
func (s *Session) ID() string { return s.header.ID }

// Cwd returns the session's working directory, an absolute path.
func (s *Session) Cwd() string { return s.header.Cwd }

// Parent returns the id of the session this one was started from, or "".
func (s *Session) Parent() string { return s.header.Parent }

// CreatedAt returns when the session was created.
func (s *Session) CreatedAt() time.Time { return s.header.CreatedAt }

// Path returns the session's log file; "" if its [Backend] keeps no files.
func (s *Session) Path() string {
	if p, ok := s.log.(pather); ok {
		return p.Path()
	}
	return ""
}

// Recovery says what Open repaired; zero for a session Created or closed
// cleanly.
func (s *Session) Recovery() Recovery { return s.recovery }

// Append validates p against the log's structure, writes it and returns the
// logged event. An event that breaks the structure yields an
// [*InvalidError] and nothing is written. Append does not fsync, except for
// a turn/end: a turn/end is durable when Append returns. If only that sync
// fails, the event is returned with the error: it is logged, not durable.
// p may be a payload value or a pointer to one.
func (s *Session) Append(p event.Payload) (event.Event, error) {
	p, err := normalize(p)
	if err != nil {
		return event.Event{}, fmt.Errorf("append: %w", err)
	}
	data, err := event.Encode(p)
	if err != nil {
		return event.Event{}, fmt.Errorf("append: %w", err)
	}
	return s.append(p.EventType(), p, data)
}

// AppendRaw appends an event whose payload is already JSON. data must be
// a JSON object. An event of a host type is decoded and treated exactly as
// by Append — a todo/write updates Todos — but its data is logged as given
// (compacted if it spans lines). An event of another type must be named
// family/name (letters, digits, '.', '_', '-') and needs an open turn,
// like every event. AppendRaw copies data. It checks data as
// event.Propose does, then appends as AppendProposed.
func (s *Session) AppendRaw(t event.Type, data json.RawMessage) (event.Event, error) {
	p, err := event.Propose(t, data)
	if err != nil {
		return event.Event{}, fmt.Errorf("append: %w", invalid(t, "%v", err))
	}
	return s.AppendProposed(p)
}

// AppendProposed appends an event a tool proposed, checked when it was
// made (event.Propose): it is not checked again, but for what only the
// log can tell — the turn structure, and the payload of a host type, which
// is decoded and treated exactly as by Append (a todo/write updates
// Todos), its data logged as given.
func (s *Session) AppendProposed(p event.Proposed) (event.Event, error) {
	t, data := p.Type(), p.Data()
	if t == "" {
		return event.Event{}, fmt.Errorf("append: %w", invalid(t, "not a proposed event: make it with event.Propose"))
	}
	var payload event.Payload
	if event.IsKnown(t) {
		var err error
		if payload, err = decodePayload(t, data); err != nil {
			return event.Event{}, fmt.Errorf("append: %w", err)
		}
	}
	return s.append(t, payload, data)
}

func (s *Session) append(t event.Type, p event.Payload, data json.RawMessage) (event.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return event.Event{}, fmt.Errorf("append %s: %w", t, ErrClosed)
	}
	return s.appendLocked(t, p, data, s.now().UTC())
}

// appendLocked checks, writes, projects and announces one event; a
// turn/end is synced before followers hear of it.
func (s *Session) appendLocked(t event.Type, p event.Payload, data json.RawMessage, at time.Time) (event.Event, error) {
	if err := s.st.check(t, p); err != nil {
		return event.Event{}, fmt.Errorf("append: %w", err)
	}
	ev := event.Event{Seq: int64(len(s.events)), Time: at, Type: t, Data: data}
	if err := s.log.Append(eventlog.Record{Seq: ev.Seq, Time: ev.Time, Type: string(t), Data: data}); err != nil {
		return event.Event{}, fmt.Errorf("append %s to session %s: %w", t, s.header.ID, err)
	}
	s.project(ev, p)
	var err error
	if t == event.TypeTurnEnd {
		// Synced under mu, before followers hear of it: nothing reports a
		// turn as ended before it is durable. Readers wait one fsync.
		if serr := s.log.Sync(); serr != nil {
			err = fmt.Errorf("append %s to session %s: %w", t, s.header.ID, serr)
		}
		s.putIndexLocked()
	}
	s.notify()
	return ev, err
}

// project applies a checked event to the structure and the projections.
func (s *Session) project(ev event.Event, p event.Payload) {
	s.st.apply(p)
	s.events = append(s.events, ev)
	s.sum.add(ev.Time, p)
	switch p := p.(type) {
	case event.TurnStart:
		s.turns = append(s.turns, Turn{Turn: p.Turn, Start: ev.Seq, End: -1})
	case event.TurnEnd:
		t := &s.turns[len(s.turns)-1]
		t.End, t.Reason = ev.Seq, p.Reason
	case event.StepStart:
		s.turns[len(s.turns)-1].Steps++
	case event.Permission:
		switch p.Decision {
		case event.AllowAlways, event.RejectAlways:
			if p.Source == event.SourceSession {
				break // an earlier answer applied again: nothing new
			}
			if s.always == nil {
				s.always = make(map[string][]event.Permission)
			}
			s.always[p.Tool] = append(s.always[p.Tool], p)
			if p.Kind != "" {
				if s.alwaysKind == nil {
					s.alwaysKind = make(map[string][]event.Permission)
				}
				s.alwaysKind[p.Kind] = append(s.alwaysKind[p.Kind], p)
			}
		}
	case event.PermissionMode:
		s.mode = p.Mode
	case event.SandboxPolicy:
		s.sandbox = p
	case event.TodoWrite:
		s.todos = p.Todos
		if s.todos == nil {
			s.todos = []event.Todo{} // written, even if empty
		}
	case event.UserMessage, event.AssistantMessage, event.ToolResult:
		if m, ok := message(p); ok {
			switch p := p.(type) {
			case event.UserMessage:
				m.Images = s.images(p.Content)
			case event.ToolResult:
				m.Images = s.images(p.Images)
			}
			s.msgs = append(s.msgs, m)
			s.seqs = append(s.seqs, ev.Seq)
			if _, user := p.(event.UserMessage); user {
				s.lastUser, s.lastUserSeq = m, ev.Seq
			}
		}
		if a, ok := p.(event.AssistantMessage); ok && a.Usage != nil {
			s.usage = a.Usage.InputTokens + a.Usage.CacheReadTokens + a.Usage.CacheWriteTokens + a.Usage.OutputTokens
			s.usageAt = len(s.msgs)
		}
	case event.Compact:
		s.compact(p)
	}
}

// putIndexLocked puts the session's summary to the backend's index, if it
// keeps one. A failed put is not reported: the index is a cache, and
// Store.List reads the log of a session whose entry is not current.
func (s *Session) putIndexLocked() {
	if s.index != nil {
		_ = s.index.PutSummary(s.header.ID, Indexed(s.sum.summary(s.header), s.sum.next))
	}
}

// notify wakes the followers waiting for an event.
func (s *Session) notify() {
	if s.wake != nil {
		close(s.wake)
		s.wake = nil
	}
}

// Messages returns the model history derived from the surface events, kept
// up to date as events are appended. The slice and the messages share memory
// with the session: the caller must not modify them (appending to the slice
// is safe; it never writes into the session's array).
func (s *Session) Messages() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.msgs[:len(s.msgs):len(s.msgs)]
}

// MessageSeqs returns, for each message of Messages() at the time of the
// call, the seq of the surface event it derives from, or -1 for the
// messages a compaction puts first (its summary, the restated last user
// message). The slice is the caller's.
func (s *Session) MessageSeqs() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seqs)
}

// ContextUsage returns the tokens the provider reported for the history up
// to and including the last answer that carried usage — its prompt (input
// plus input read from and written to the provider's cache) and its answer — and counted, how many of Messages()
// that covers. ok is false when no reported usage counts the current
// history (none reported yet, or a compaction since).
func (s *Session) ContextUsage() (tokens, counted int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.usageAt < 0 {
		return 0, 0, false
	}
	return s.usage, s.usageAt, true
}

// ContextLimit returns the context length a provider stated in an overflow
// error, as the last compaction recorded it; 0 if none did.
func (s *Session) ContextLimit() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limit
}

// Events returns every event of the session so far. The caller must not
// modify the slice or the events' Data.
func (s *Session) Events() []event.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events[:len(s.events):len(s.events)]
}

// Len returns the number of events: the seq the next one will carry.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

// Todos returns the current todo list — that of the last todo/write — or nil
// before any. The slice is the caller's.
func (s *Session) Todos() []event.Todo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.todos)
}

// Always returns the "always" permission answers recorded for tool in this
// session, in log order: each an event.Permission whose Scope says what it
// covers (empty: the whole tool, as logs written before scopes say). What
// they allow is host/permission's business. The slice is the caller's.
func (s *Session) Always(tool string) []event.Permission {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.always[tool])
}

// AlwaysKind returns the "always" answers recorded in this session that
// cover every call of a kind of tool (event.Permission.Kind, such as
// "edit"), in log order. The slice is the caller's.
func (s *Session) AlwaysKind(kind string) []event.Permission {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.alwaysKind[kind])
}

// Mode returns the permission mode the log holds (its last
// permission/mode), "" when it holds none (a log written before modes).
func (s *Session) Mode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// Sandbox is the last sandbox/policy event of the log: the sandbox the
// session's bash commands run under; the zero value when the log holds
// none (a log written before the setting was logged).
func (s *Session) Sandbox() event.SandboxPolicy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sandbox
}

// Turns returns every turn of the session in order. The slice is the
// caller's.
func (s *Session) Turns() []Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.turns)
}

// LastTurn returns the number of the last turn started, 0 if none.
func (s *Session) LastTurn() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.lastTurn
}

// OpenTurn returns the open turn, if one is open.
func (s *Session) OpenTurn() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.turn, s.st.turn != 0
}

// OpenStep returns the open step of the open turn, if one is open.
func (s *Session) OpenStep() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.step, s.st.step != 0
}

// Follow returns a sequence of every event from seq from on (from 0 if
// negative), in order, without gap or repeat. It yields the events already
// logged, then waits for new ones; it ends when ctx is done, when the
// session is closed and every event has been yielded, or when the loop
// breaks. A slow consumer loses nothing: it resumes where it stopped. The
// sequence may be ranged over more than once; each range starts at from.
func (s *Session) Follow(ctx context.Context, from int64) iter.Seq[event.Event] {
	return func(yield func(event.Event) bool) {
		next := max(from, 0)
		for ctx.Err() == nil {
			s.mu.Lock()
			if next < int64(len(s.events)) {
				// Logged events never change, so the batch can be read
				// without the lock while appends go on.
				batch := s.events[next:len(s.events):len(s.events)]
				s.mu.Unlock()
				for _, ev := range batch {
					if !yield(ev) {
						return
					}
					next++
				}
				continue
			}
			if s.closed {
				s.mu.Unlock()
				return
			}
			if s.wake == nil {
				s.wake = make(chan struct{})
			}
			wake := s.wake
			s.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-wake:
			}
		}
	}
}

// Sync makes every event appended so far durable.
func (s *Session) Sync() error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("sync session %s: %w", s.header.ID, ErrClosed)
	}
	if err := s.log.Sync(); err != nil {
		return fmt.Errorf("sync session %s: %w", s.header.ID, err)
	}
	return nil
}

// Close syncs and closes the log, releasing the lock, and ends every
// follower once it has yielded the last event. An open turn stays open in
// the log; the next Open closes it as interrupted. Closing a closed session
// returns nil.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.notify()
	s.putIndexLocked()
	s.mu.Unlock()
	if err := s.log.Close(); err != nil {
		return fmt.Errorf("close session %s: %w", s.header.ID, err)
	}
	return nil
}
