package acpbridge

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// Notices are what a session has to tell the user outside its turns'
// messages (harness: an MCP server that failed to start, died or is
// down, a bad mcp.json). A Session that implements [Noticer] is watched
// once the editor knows it — after session/new's response, after
// session/load's replay, on session/resume — and each notice is sent
// once: as ACP's notice update (severity, title, description) to a
// client that advertised clientCapabilities.session.notices, else as an
// agent_message_chunk of a message of its own (a fresh messageId) whose
// text is the title, then the description. A notice is never written to
// the session's log: the model does not read it as its own words, and a
// replay does not show it.

// Notice is one thing to tell the user: Title one line that stands
// alone, Text the detail (may be empty), Severity NoticeInfo,
// NoticeWarning or NoticeError.
type Notice struct {
	Severity    string
	Title, Text string
}

// Severities of a Notice.
const (
	NoticeInfo    = "info"
	NoticeWarning = "warning"
	NoticeError   = "error"
)

// Noticer is a Session with notices. WatchNotices calls f with each
// notice from now on, those that came before first, until the session
// is closed; f does not block for long.
type Noticer interface {
	WatchNotices(f func(Notice))
}

// noteNotices reads clientCapabilities.session.notices from the
// initialize request's params (the SDK's types do not hold it).
func (b *bridge) noteNotices(params json.RawMessage) {
	var p struct {
		ClientCapabilities struct {
			Session struct {
				Notices json.RawMessage `json:"notices"`
			} `json:"session"`
		} `json:"clientCapabilities"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	c := p.ClientCapabilities.Session.Notices
	b.notices.Store(len(c) > 0 && c[0] == '{')
}

// watchNotices watches ls's session for notices, once per session
// opened on the connection.
func (b *bridge) watchNotices(ls *liveSession) {
	n, ok := ls.s.(Noticer)
	if !ok {
		return
	}
	ls.noticed.Do(func() {
		id := ls.s.ID()
		n.WatchNotices(func(no Notice) { b.sendNotice(id, no) })
	})
}

// noticeUpdate is ACP's notice session update.
type noticeUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	Severity      string `json:"severity"`
	Title         string `json:"title"`
	Description   string `json:"description,omitempty"`
}

// sendNotice sends one notice of session id the way the client takes it.
func (b *bridge) sendNotice(id string, n Notice) {
	if n.Title == "" {
		n.Title = "harness"
	}
	if b.notices.Load() {
		b.sendRaw(id, noticeUpdate{SessionUpdate: "notice", Severity: n.Severity, Title: n.Title, Description: n.Text})
		return
	}
	text := n.Title
	if n.Text != "" {
		text += "\n" + n.Text
	}
	b.send(id, chunk(kindText, acp.TextBlock(text+"\n\n"), noticeMessageID()))
}

// noticeMessageID is a random (version 4) UUID: each notice is a message
// of its own.
func noticeMessageID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
