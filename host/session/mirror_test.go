package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
)

// A mirror of a held session has its events so far, follows what the
// writer appends, projects it (turns, messages) and refuses to append.
func TestMirror(t *testing.T) {
	st := newStore(t)
	w := create(t, st, "held")
	defer w.Close()
	mustAppend(t, w, event.TurnStart{Turn: 1}, event.UserMessage{Content: event.Text("go")})
	_, held := st.Open("held")
	if !errors.Is(held, eventlog.ErrLocked) {
		t.Fatalf("open of a held session: %v", held)
	}
	m, err := st.Mirror("held", held)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !m.ReadOnly() || w.ReadOnly() {
		t.Fatal("ReadOnly: the mirror is, the writer is not")
	}
	if n := len(m.Events()); n != 2 {
		t.Fatalf("mirror has %d events, want 2", n)
	}
	mustAppend(t, w, event.StepStart{Turn: 1, Step: 1}, event.AssistantMessage{Turn: 1, Step: 1, Text: "done"},
		event.StepEnd{Turn: 1, Step: 1}, event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for ev := range m.Follow(ctx, 2) {
		if ev.Type == event.TypeTurnEnd {
			break
		}
	}
	if ctx.Err() != nil {
		t.Fatal("the mirror did not follow the writer's turn")
	}
	if turns := m.Turns(); len(turns) != 1 || turns[0].Reason != event.ReasonCompleted {
		t.Fatalf("mirror's turns %+v", turns)
	}
	if msgs := m.Messages(); len(msgs) != 2 || msgs[1].Text != "done" {
		t.Fatalf("mirror's messages %+v", msgs)
	}
	_, err = m.Append(event.TurnStart{Turn: 2})
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "another harness process") {
		t.Fatalf("append to a mirror: %v, want ErrReadOnly quoting the holder", err)
	}
	if n := len(w.Events()); n != 6 {
		t.Fatalf("the writer has %d events after the mirror's refused append, want 6", n)
	}
}
