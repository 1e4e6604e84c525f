package acpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	acp "github.com/coder/acp-go-sdk"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/shorten"
)

// Compactions (context/compact) are shown two ways. A client that
// advertised the session.compaction capability in initialize
// (clientCapabilities.session.compaction) gets ACP's compaction updates:
// compaction_update in_progress when the loop starts summarizing, the
// summary as compaction_summary_chunk updates while it streams, then
// compaction_update completed with the whole summary (and the token counts
// in _meta) once the context/compact is logged — or failed with the error;
// session/load replays each logged compaction as one compaction_update
// completed. The compaction id is "compaction-<seq>", the seq of its
// context/compact. The SDK this bridge is built on has no types for these
// updates, so the bridge writes them itself. Any other client gets an
// agent message of its own: "Compacting context (auto)…" when it starts and
// " done: ~N → ~M tokens." when it is logged; on replay the same text in
// one chunk.

// kindCompaction names the agent messages that show compactions (for their
// message ids).
const kindCompaction = "compaction"

// noteCapabilities reads the client capabilities the SDK's types do not
// hold from the initialize request's params.
func (b *bridge) noteCapabilities(params json.RawMessage) {
	var p struct {
		ClientCapabilities struct {
			Session struct {
				Compaction json.RawMessage `json:"compaction"`
			} `json:"session"`
		} `json:"clientCapabilities"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	c := p.ClientCapabilities.Session.Compaction
	b.compaction.Store(len(c) > 0 && c[0] == '{')
}

func compactionID(seq int64) string { return "compaction-" + strconv.FormatInt(seq, 10) }

// compactionUpdate is ACP's compaction_update.
type compactionUpdate struct {
	SessionUpdate string             `json:"sessionUpdate"`
	CompactionID  string             `json:"compactionId"`
	Status        string             `json:"status"`
	Summary       []acp.ContentBlock `json:"summary,omitempty"`
	Error         *string            `json:"error,omitempty"`
	Meta          map[string]any     `json:"_meta,omitempty"`
}

// compactionChunk is ACP's compaction_summary_chunk.
type compactionChunk struct {
	SessionUpdate string           `json:"sessionUpdate"`
	CompactionID  string           `json:"compactionId"`
	Content       acp.ContentBlock `json:"content"`
}

// sendRaw writes one session/update whose update the bridge encodes itself.
func (b *bridge) sendRaw(id string, update any) {
	err := b.conn.Notify(acp.ClientMethodSessionUpdate, struct {
		SessionID string `json:"sessionId"`
		Update    any    `json:"update"`
	}{id, update})
	if err != nil {
		b.log.Debug("session update not sent", "session", id, "error", err)
	}
}

// sendCompaction sends the compaction_update of a logged context/compact
// when the client takes them; it reports whether ev was one it sent.
func (b *bridge) sendCompaction(sessionID string, ev event.Event) bool {
	if ev.Type != event.TypeCompact || !b.compaction.Load() {
		return false
	}
	p, err := ev.Decode()
	c, ok := p.(event.Compact)
	if err != nil || !ok {
		b.log.Warn("event not shown", "session", sessionID, "seq", ev.Seq, "type", ev.Type, "error", err)
		return true
	}
	b.sendRaw(sessionID, compactionUpdate{SessionUpdate: "compaction_update", CompactionID: compactionID(ev.Seq),
		Status: "completed", Summary: []acp.ContentBlock{acp.TextBlock(c.Summary)},
		Meta: map[string]any{"harness": map[string]any{"reason": c.Reason, "tokensBefore": c.TokensBefore, "tokensAfter": c.TokensAfter}}})
	return true
}

// compactingText starts the agent message that shows a compaction to a
// client without the capability; compactedText ends it.
func compactingText(reason string) string { return "Compacting context (" + reason + ")…" }

func compactedText(c event.Compact) string {
	return fmt.Sprintf(" done: ~%d → ~%d tokens.\n\n", c.TokensBefore, c.TokensAfter)
}

// compacted is the agent message chunk of a logged context/compact for a
// client without the capability: live, the end of the message
// CompactionStarted began; on replay, the whole message.
func (t *translator) compacted(seq int64, c event.Compact) acp.SessionUpdate {
	text := compactedText(c)
	if t.replay {
		text = compactingText(c.Reason) + text
	}
	return chunk(kindText, acp.TextBlock(text), t.messageID(kindCompaction, c.Turn, int(seq)))
}

// CompactionStarted implements agent.CompactionLive.
func (ts *turnStream) CompactionStarted(_ string, id int64, reason string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.catchUpLocked()
	sid := ts.sess.ID()
	if ts.b.compaction.Load() {
		ts.b.sendRaw(sid, compactionUpdate{SessionUpdate: "compaction_update", CompactionID: compactionID(id), Status: "in_progress"})
		return
	}
	ts.b.send(sid, chunk(kindText, acp.TextBlock(compactingText(reason)), ts.tr.messageID(kindCompaction, ts.tr.turn, int(id))))
}

// CompactionDelta implements agent.CompactionLive: the summary as it
// streams, to a client that takes compaction updates.
func (ts *turnStream) CompactionDelta(_ string, id int64, text string) {
	if text == "" || !ts.b.compaction.Load() {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.catchUpLocked()
	ts.b.sendRaw(ts.sess.ID(), compactionChunk{SessionUpdate: "compaction_summary_chunk", CompactionID: compactionID(id), Content: acp.TextBlock(text)})
}

// CompactionEnded implements agent.CompactionLive: a failure is shown; a
// success shows when its context/compact is translated.
func (ts *turnStream) CompactionEnded(_ string, id int64, err error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.catchUpLocked()
	if err == nil {
		return
	}
	sid, msg := ts.sess.ID(), shorten.OneLine(err.Error())
	if errors.Is(err, context.Canceled) {
		msg = "cancelled"
		if ts.b.compaction.Load() {
			ts.b.sendRaw(sid, compactionUpdate{SessionUpdate: "compaction_update", CompactionID: compactionID(id), Status: "cancelled"})
			return
		}
	}
	if ts.b.compaction.Load() {
		ts.b.sendRaw(sid, compactionUpdate{SessionUpdate: "compaction_update", CompactionID: compactionID(id), Status: "failed", Error: &msg})
		return
	}
	ts.b.send(sid, chunk(kindText, acp.TextBlock(" failed: "+msg+"\n\n"), ts.tr.messageID(kindCompaction, ts.tr.turn, int(id))))
}
