package acpbridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/harness-dev/harness/host/event"
)

// turnStream sends the updates of one live turn. Durable events reach it
// from the session's follower, each once; text and reasoning deltas (and
// the other Live callbacks) through its methods. Both go through one
// cursor under mu, so the client sees the turn in log order, each event
// once, and every delta after the events logged before it (a step's deltas
// after its step/start, the next step's text after this step's tool
// results): a delta first catches up with the log (catchUpLocked), and
// the follower skips the events a catch-up has sent.
type turnStream struct {
	b    *bridge
	sess Session

	mu     sync.Mutex // guards tr and cursor, and orders the sends
	tr     translator
	cursor int64 // seq of the next event to translate
	// progress is the live output of the turn's tool calls, by call id.
	progress map[string]*strings.Builder
	// titled is set once the session has a user/message: its title went
	// out (titles.go).
	titled bool

	stop context.CancelFunc
	done chan struct{}
}

// startStream starts streaming sess's events from its current end. It
// follows the session until finish, whatever becomes of ctx: the updates
// of a cancelled turn still go out.
func (b *bridge) startStream(ctx context.Context, sess Session) *turnStream {
	evs := sess.Events()
	ts := &turnStream{b: b, sess: sess, titled: prompted(evs),
		tr: translator{sessionID: sess.ID(), blob: blobReader(sess)}, cursor: int64(len(evs)), done: make(chan struct{})}
	fctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	ts.stop = stop
	from := ts.cursor
	go func() {
		defer close(ts.done)
		next := from // Follow yields every event from from on, in order
		for ev := range sess.Follow(fctx, from) {
			ts.mu.Lock()
			if next == ts.cursor { // else a catch-up has sent it
				ts.cursor++
				ts.showLocked(ev)
			}
			ts.mu.Unlock()
			next++
		}
	}()
	return ts
}

// finish stops following and sends whatever is left; when it returns,
// every update of the turn has been written.
func (ts *turnStream) finish() {
	ts.stop()
	<-ts.done
	ts.mu.Lock()
	ts.catchUpLocked()
	ts.mu.Unlock()
}

// EditorFiles says which of fs/read_text_file and fs/write_text_file the
// client offered in initialize: the host then routes the plugins' text
// files of this turn through the editor (see engine.EditorFiles).
func (ts *turnStream) EditorFiles() (read, write bool) {
	fs := ts.b.clientFS()
	return fs.ReadTextFile, fs.WriteTextFile
}

// ReadEditorFile reads the file at the absolute path with
// fs/read_text_file: the editor's buffer, unsaved changes included.
func (ts *turnStream) ReadEditorFile(ctx context.Context, path string) (string, error) {
	if !ts.b.clientFS().ReadTextFile {
		return "", errors.New("the editor did not offer fs.readTextFile")
	}
	var resp acp.ReadTextFileResponse
	if err := ts.b.conn.Call(ctx, acp.ClientMethodFsReadTextFile, acp.ReadTextFileRequest{SessionId: acp.SessionId(ts.sess.ID()), Path: path}, &resp); err != nil {
		return "", fmt.Errorf("fs/read_text_file: %w", err)
	}
	return resp.Content, nil
}

// WriteEditorFile has the editor write the file with fs/write_text_file.
// The call's tool_call (with its diff) goes out first.
func (ts *turnStream) WriteEditorFile(ctx context.Context, path, content string) error {
	if !ts.b.clientFS().WriteTextFile {
		return errors.New("the editor did not offer fs.writeTextFile")
	}
	ts.mu.Lock()
	ts.catchUpLocked()
	ts.mu.Unlock()
	if err := ts.b.conn.Call(ctx, acp.ClientMethodFsWriteTextFile, acp.WriteTextFileRequest{SessionId: acp.SessionId(ts.sess.ID()), Path: path, Content: content}, nil); err != nil {
		return fmt.Errorf("fs/write_text_file: %w", err)
	}
	return nil
}

// TextDelta implements Live.
func (ts *turnStream) TextDelta(_, text string) { ts.delta(kindText, text) }

// ReasoningDelta implements Live.
func (ts *turnStream) ReasoningDelta(_, text string) { ts.delta(kindThought, text) }

func (ts *turnStream) delta(kind, text string) {
	if text == "" {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.catchUpLocked()
	ts.b.send(ts.sess.ID(), ts.tr.delta(kind, text))
}

// catchUpLocked sends the events logged since the cursor, which the
// follower has not yielded yet.
func (ts *turnStream) catchUpLocked() {
	evs := ts.sess.Events()
	for ts.cursor < int64(len(evs)) {
		ev := evs[ts.cursor]
		ts.cursor++
		ts.showLocked(ev)
	}
}

// showLocked translates and sends one event of the turn.
func (ts *turnStream) showLocked(ev event.Event) {
	if !ts.b.sendCompaction(ts.sess.ID(), ev) {
		ups, err := ts.tr.updates(ev)
		if err != nil {
			ts.b.log.Warn("event not shown", "session", ts.sess.ID(), "seq", ev.Seq, "type", ev.Type, "error", err)
			return
		}
		for _, u := range ups {
			ts.b.send(ts.sess.ID(), u)
		}
	}
	if ev.Type == event.TypeUserMessage && !ts.titled { // the first prompt names the session
		ts.titled = true
		if u, ok := infoUpdate(ts.sess, ev.Time); ok {
			ts.b.send(ts.sess.ID(), u)
		}
	}
	// a step's usage is in, or the history was compacted
	if ev.Type == event.TypeAssistantMessage || ev.Type == event.TypeCompact {
		if u, ok := usageUpdate(ts.sess); ok {
			ts.b.send(ts.sess.ID(), u)
		}
	}
}

// replay sends the whole conversation of sess as session/update
// notifications, through the same translator as live turns, and stops
// early only when ctx is done or the client is gone.
func (b *bridge) replay(ctx context.Context, sess Session) error {
	tr := translator{sessionID: sess.ID(), replay: true, blob: blobReader(sess)}
	evs := sess.Events()
	if ro, ok := sess.(ReadOnlySession); ok && ro.ReadOnly() {
		// What its writer logs from here on follows the replay, through
		// the same translator (the writer's deltas are not logged: its
		// answers come whole, as on replay).
		defer func() { go b.mirror(sess, &tr, int64(len(evs))) }()
	}
	ups := make([]acp.SessionUpdate, 0, len(evs))
	for _, ev := range evs {
		if ev.Type == event.TypeCompact && b.compaction.Load() {
			// written by the bridge itself: flush what precedes it
			if err := b.sendAll(ctx, sess.ID(), ups); err != nil {
				return err
			}
			ups = ups[:0]
			b.sendCompaction(sess.ID(), ev)
			continue
		}
		u, err := tr.updates(ev)
		if err != nil {
			b.log.Warn("event not replayed", "session", sess.ID(), "seq", ev.Seq, "type", ev.Type, "error", err)
			continue
		}
		ups = append(ups, u...)
	}
	return b.sendAll(ctx, sess.ID(), ups)
}

// blobReader is sess's blob reader, nil when it keeps none.
func blobReader(sess Session) func(string) ([]byte, error) {
	if b, ok := sess.(BlobSession); ok {
		return b.Blob
	}
	return nil
}

// mirror sends the updates of what sess's writer logs from seq from on,
// until the session is closed.
func (b *bridge) mirror(sess Session, tr *translator, from int64) {
	for ev := range sess.Follow(context.Background(), from) {
		ups, err := tr.updates(ev)
		if err != nil {
			b.log.Warn("event not sent", "session", sess.ID(), "seq", ev.Seq, "type", ev.Type, "error", err)
			continue
		}
		for _, u := range ups {
			b.send(sess.ID(), u)
		}
	}
}
