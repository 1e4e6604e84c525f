package acpbridge

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/shorten"
)

// translator turns a session's events into ACP session updates. The same
// code serves a live turn and a session/load replay; the only difference is
// where the conversation's text comes from. Live, the user's prompt is not
// echoed and the model's text and reasoning arrive as deltas (see
// [translator.delta]); on replay they come from user/message and
// assistant/message. A translator keeps the position in the log the mapping
// needs — the open turn and step — so it must see every event in order.
type translator struct {
	sessionID string
	replay    bool
	turn      int
	step      int
	// open are the tool_calls announced and not yet ended, by call id:
	// their diffs show again on the final update (ACP replaces a call's
	// content with each update), and a permission question about one
	// carries what it shows.
	open map[string]*acp.SessionUpdateToolCall
	// starting are the calls announced pending and not yet shown
	// in_progress, in the order they were announced: a call is pending
	// while it awaits approval (ACP's pending), and in_progress once it
	// runs — on an allowing permission/decision, on the Live's ToolStart,
	// or at the next event that is not its permission/decision.
	starting []string
	// terminals are the editor's terminals calls run in, by call id: the
	// final update shows the terminal again (RunInTerminal).
	terminals map[string]string
	// blob reads a tool result's image from the session's blob folder
	// (BlobSession); nil: images show as text.
	blob func(hash string) ([]byte, error)
}

// update kinds, as the sessionUpdate discriminator names them.
const (
	kindUser    = "user_message_chunk"
	kindText    = "agent_message_chunk"
	kindThought = "agent_thought_chunk"
)

// updates returns the session updates for ev, in order; none for events
// that show nothing (turn and step boundaries, plugin-declared types). A
// payload that does not decode is an error, and yields nothing.
func (t *translator) updates(ev event.Event) ([]acp.SessionUpdate, error) {
	p, err := ev.Decode()
	if errors.Is(err, event.ErrUnknownType) {
		return nil, nil // a plugin's own event: nothing to show
	}
	if err != nil {
		return nil, err
	}
	if d, ok := p.(event.Permission); ok && t.isStarting(d.CallID) {
		t.dropStarting(d.CallID)
		if d.Decision.Allows() {
			return []acp.SessionUpdate{inProgress(d.CallID)}, nil
		}
		return nil, nil // rejected: it never runs; its result says so
	}
	ups := t.flushStarting()
	more, err := t.event(ev, p)
	return append(ups, more...), err
}

// event returns the updates of one decoded payload.
func (t *translator) event(ev event.Event, p any) ([]acp.SessionUpdate, error) {
	switch p := p.(type) {
	case event.TurnStart:
		t.turn, t.step = p.Turn, 0
	case event.StepStart:
		t.step = p.Step
	case event.UserMessage:
		if t.replay {
			return t.userMessage(p), nil
		}
	case event.AssistantMessage:
		if t.replay {
			var ups []acp.SessionUpdate
			if p.Reasoning != "" {
				ups = append(ups, chunk(kindThought, acp.TextBlock(p.Reasoning), t.messageID(kindThought, p.Turn, p.Step)))
			}
			if p.Text != "" {
				ups = append(ups, chunk(kindText, acp.TextBlock(p.Text), t.messageID(kindText, p.Turn, p.Step)))
			}
			return ups, nil
		}
	case event.ToolCall:
		u := toolCallStart(p)
		if t.open == nil {
			t.open = make(map[string]*acp.SessionUpdateToolCall)
		}
		t.open[p.CallID] = u.ToolCall
		t.starting = append(t.starting, p.CallID)
		return []acp.SessionUpdate{u}, nil
	case event.ToolResult:
		var diffs []acp.ToolCallContent
		if c := t.open[p.CallID]; c != nil {
			diffs = c.Content
			delete(t.open, p.CallID)
		}
		u := toolCallEnd(p, diffs)
		u.ToolCallUpdate.Content = append(u.ToolCallUpdate.Content, t.images(p.Images)...)
		if id, ok := t.terminals[p.CallID]; ok {
			u.ToolCallUpdate.Content = append([]acp.ToolCallContent{terminalContent(id)}, u.ToolCallUpdate.Content...)
			delete(t.terminals, p.CallID)
		}
		return []acp.SessionUpdate{u}, nil
	case event.TodoWrite:
		return []acp.SessionUpdate{plan(p.Todos)}, nil
	case event.Compact:
		return []acp.SessionUpdate{t.compacted(ev.Seq, p)}, nil
	}
	return nil, nil
}

// start returns the in_progress update of call callID when it is still
// pending: the loop starts running it (agent.ToolStart).
func (t *translator) start(callID string) []acp.SessionUpdate {
	if !t.isStarting(callID) {
		return nil
	}
	t.dropStarting(callID)
	return []acp.SessionUpdate{inProgress(callID)}
}

func (t *translator) isStarting(callID string) bool { return slices.Contains(t.starting, callID) }

func (t *translator) dropStarting(callID string) {
	t.starting = slices.DeleteFunc(t.starting, func(id string) bool { return id == callID })
}

// flushStarting shows every pending call as in_progress: an event that is
// not about approving them came, so they run.
func (t *translator) flushStarting() []acp.SessionUpdate {
	var ups []acp.SessionUpdate
	for _, id := range t.starting {
		ups = append(ups, inProgress(id))
	}
	t.starting = t.starting[:0]
	return ups
}

// inProgress is the update that says call callID runs.
func inProgress(callID string) acp.SessionUpdate {
	return acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{ToolCallId: acp.ToolCallId(callID), Status: acp.Ptr(acp.ToolCallStatusInProgress)}}
}

// delta returns the update for a live text (kindText) or reasoning
// (kindThought) delta of the current step.
func (t *translator) delta(kind, text string) acp.SessionUpdate {
	return chunk(kind, acp.TextBlock(text), t.messageID(kind, t.turn, t.step))
}

// userMessage replays a user message: one chunk per content block.
func (t *translator) userMessage(m event.UserMessage) []acp.SessionUpdate {
	id := t.messageID(kindUser, t.turn, 0)
	ups := make([]acp.SessionUpdate, 0, len(m.Content))
	for _, c := range m.Content {
		ups = append(ups, chunk(kindUser, contentBlock(c), id))
	}
	return ups
}

// messageID names the message a chunk belongs to, the same live and on
// replay: a name-based (version 5 style) UUID of the session, the kind and
// the turn and step. Text and reasoning of a step are two messages.
func (t *translator) messageID(kind string, turn, step int) string {
	h := sha1.New()
	fmt.Fprintf(h, "harness/acp\x00%s\x00%s\x00%d\x00%d", t.sessionID, kind, turn, step)
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	b := hex.EncodeToString(u[:])
	return b[0:8] + "-" + b[8:12] + "-" + b[12:16] + "-" + b[16:20] + "-" + b[20:32]
}

// chunk builds a message chunk update of the given kind.
func chunk(kind string, c acp.ContentBlock, messageID string) acp.SessionUpdate {
	id := &messageID
	switch kind {
	case kindUser:
		return acp.SessionUpdate{UserMessageChunk: &acp.SessionUpdateUserMessageChunk{Content: c, MessageId: id}}
	case kindThought:
		return acp.SessionUpdate{AgentThoughtChunk: &acp.SessionUpdateAgentThoughtChunk{Content: c, MessageId: id}}
	}
	return acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{Content: c, MessageId: id}}
}

// toolCallStart announces a tool call: tool_call, pending (awaiting
// approval, if it needs any; the translator sends in_progress once it
// runs). The tool_call carries the kind the plugin declared and what its preview
// said: a title, the files (locations) and, for a change, the diff, which
// the editor shows before the user is asked about the call.
func toolCallStart(c event.ToolCall) acp.SessionUpdate {
	pr := present(c.Name, c.Title, c.Args, c.Kind)
	return acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{ToolCallId: acp.ToolCallId(c.CallID), Title: pr.title, Kind: pr.kind, Meta: toolMeta(c),
		Status: acp.ToolCallStatusPending, RawInput: pr.rawInput,
		Locations: locations(c.Locations), Content: diffContent(c.Diffs)}}
}

// toolCallEnd reports a tool call's result: completed or failed, its text as
// content and, raw, {content, isError}. A completed call shows its diffs
// (the result's, else those its tool_call showed, callDiffs) before the
// text; a failed one its text alone, since nothing was changed. The
// result's title and locations, when it has them, replace the call's.
func toolCallEnd(r event.ToolResult, callDiffs []acp.ToolCallContent) acp.SessionUpdate {
	status := acp.ToolCallStatusCompleted
	raw := map[string]any{"content": r.Content}
	if r.IsError {
		status = acp.ToolCallStatusFailed
		raw["isError"] = true
	}
	u := &acp.SessionToolCallUpdate{ToolCallId: acp.ToolCallId(r.CallID), Status: &status, RawOutput: raw}
	if !r.IsError {
		if len(r.Diffs) > 0 {
			u.Content = diffContent(r.Diffs)
		} else {
			u.Content = append([]acp.ToolCallContent(nil), callDiffs...)
		}
		if t := strings.TrimSpace(r.Title); t != "" {
			u.Title = &t
		}
		u.Locations = locations(r.Locations)
	}
	if r.Content != "" {
		u.Content = append(u.Content, acp.ToolContent(acp.TextBlock(r.Content)))
	}
	return acp.SessionUpdate{ToolCallUpdate: u}
}

// images are a tool result's images as ACP image content, read from the
// session's blobs; one that cannot be read shows as a line naming it.
func (t *translator) images(imgs []event.Content) []acp.ToolCallContent {
	var out []acp.ToolCallContent
	for _, c := range imgs {
		var data []byte
		err := errors.New("the session keeps no blobs")
		if t.blob != nil {
			data, err = t.blob(c.Blob)
		}
		if err != nil {
			out = append(out, acp.ToolContent(acp.TextBlock("[image: "+c.MimeType+", not kept: "+shorten.OneLine(err.Error())+"]")))
			continue
		}
		b := acp.ImageBlock(base64.StdEncoding.EncodeToString(data), c.MimeType)
		if c.URI != "" {
			b.Image.Uri = &c.URI
		}
		out = append(out, acp.ToolContent(b))
	}
	return out
}

// locations maps a call's files to ACP locations.
func locations(ls []event.Location) []acp.ToolCallLocation {
	var out []acp.ToolCallLocation
	for _, l := range ls {
		if l.Path == "" {
			continue
		}
		loc := acp.ToolCallLocation{Path: l.Path}
		if l.Line > 0 {
			loc.Line = acp.Ptr(l.Line)
		}
		out = append(out, loc)
	}
	return out
}

// diffContent maps a call's diffs to ACP diff content; a new file has no
// oldText.
func diffContent(ds []event.Diff) []acp.ToolCallContent {
	var out []acp.ToolCallContent
	for _, d := range ds {
		if d.Path == "" {
			continue
		}
		if d.NewFile {
			out = append(out, acp.ToolDiffContent(d.Path, d.NewText))
		} else {
			out = append(out, acp.ToolDiffContent(d.Path, d.NewText, d.OldText))
		}
	}
	return out
}

// plan maps the todo list to a plan update: the complete list, every entry
// of priority medium (the list has no priorities; ACP requires one).
func plan(todos []event.Todo) acp.SessionUpdate {
	entries := make([]acp.PlanEntry, 0, len(todos)) // never null: [] clears the plan
	for _, td := range todos {
		entries = append(entries, acp.PlanEntry{Content: td.Content, Priority: acp.PlanEntryPriorityMedium, Status: planStatus(td.Status)})
	}
	return acp.SessionUpdate{Plan: &acp.SessionUpdatePlan{Entries: entries}}
}

// planStatus maps a todo status; the session admits only the three ACP
// knows, anything else shows as pending rather than being dropped.
func planStatus(s event.TodoStatus) acp.PlanEntryStatus {
	switch s {
	case event.TodoInProgress:
		return acp.PlanEntryStatusInProgress
	case event.TodoCompleted:
		return acp.PlanEntryStatusCompleted
	}
	return acp.PlanEntryStatusPending
}

// presentation is how a tool call shows in the editor.
type presentation struct {
	title    string
	kind     acp.ToolKind
	rawInput any
}

// present returns the presentation of a call to tool name with the title
// the host logged with it, the model's raw arguments and the kind its
// plugin declared (ACP's ToolKind; none or anything else shows as other).
// The title is the logged one: the plugin's preview title, else the title
// its tool declared (pluginapi.ToolSpec.Title, "{command}" for bash); a
// call logged without one (a tool that declares none, a log written before
// tools declared titles) shows the tool's name. rawInput is the parsed
// arguments, or the raw text when they are not JSON.
func present(name, title, args, kind string) presentation {
	var parsed any
	if err := json.Unmarshal([]byte(args), &parsed); err != nil {
		parsed = args
		if strings.TrimSpace(args) == "" {
			parsed = map[string]any{}
		}
	}
	pr := presentation{title: strings.TrimSpace(title), kind: toolKind(kind), rawInput: parsed}
	if pr.title == "" {
		pr.title = name
	}
	if pr.title == "" {
		pr.title = "tool call"
	}
	return pr
}

// toolKind maps a declared kind to ACP's; unknown or empty is other.
func toolKind(k string) acp.ToolKind {
	switch kk := acp.ToolKind(k); kk {
	case acp.ToolKindRead, acp.ToolKindEdit, acp.ToolKindDelete, acp.ToolKindMove, acp.ToolKindSearch,
		acp.ToolKindExecute, acp.ToolKindThink, acp.ToolKindFetch, acp.ToolKindOther:
		return kk
	}
	return acp.ToolKindOther
}

// contentBlock maps a block of a user message to ACP.
func contentBlock(c event.Content) acp.ContentBlock {
	var mime *string
	if c.MimeType != "" {
		mime = &c.MimeType
	}
	switch c.Type {
	case event.ContentResourceLink:
		b := acp.ResourceLinkBlock(c.Name, c.URI)
		b.ResourceLink.MimeType = mime
		return b
	case event.ContentResource:
		return acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{
			Uri: c.URI, Text: c.Text, MimeType: mime}})
	case event.ContentImage:
		// the bytes are in the session's blob folder, not in the log
		return acp.TextBlock("[image: " + c.MimeType + "]")
	}
	return acp.TextBlock(c.Text)
}

// promptContent maps the blocks of a session/prompt to the content of a user
// message: text, resource links and embedded text resources. An embedded
// binary resource, or one without text, becomes a link to its URI; images and audio are refused,
// as initialize does not advertise them, and so is a block of any other
// type, named in the error (the SDK decodes a block of an unknown type as
// text with its type kept, which must not become an empty message).
func promptContent(blocks []acp.ContentBlock) ([]event.Content, error) {
	if len(blocks) == 0 {
		return nil, errors.New("the prompt is empty")
	}
	out := make([]event.Content, 0, len(blocks))
	for i, b := range blocks {
		if typ, want := blockType(b); typ != want {
			if typ == "" {
				return nil, fmt.Errorf("prompt block %d has no type: harness accepts text, image, resource_link and resource blocks", i)
			}
			return nil, fmt.Errorf("prompt block %d has type %s: harness accepts text, image, resource_link and resource blocks", i, strconv.Quote(shorten.Bytes(typ, 64)))
		}
		switch {
		case b.Text != nil:
			out = append(out, event.Content{Type: event.ContentText, Text: b.Text.Text})
		case b.ResourceLink != nil:
			l := b.ResourceLink
			out = append(out, event.Content{Type: event.ContentResourceLink, URI: l.Uri, Name: l.Name, MimeType: deref(l.MimeType)})
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil && b.Resource.Resource.TextResourceContents.Text == "":
			// The SDK decodes a resource with neither text nor blob as
			// empty text: pass the URI, never claim the content is empty.
			r := b.Resource.Resource.TextResourceContents
			out = append(out, event.Content{Type: event.ContentResourceLink, URI: r.Uri, Name: linkName(r.Uri), MimeType: deref(r.MimeType)})
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			out = append(out, event.Content{Type: event.ContentResource, URI: r.Uri, Text: r.Text, MimeType: deref(r.MimeType)})
		case b.Resource != nil && b.Resource.Resource.BlobResourceContents != nil:
			r := b.Resource.Resource.BlobResourceContents
			out = append(out, event.Content{Type: event.ContentResourceLink, URI: r.Uri, Name: linkName(r.Uri), MimeType: deref(r.MimeType)})
		case b.Image != nil:
			c, err := imageContent(i, b.Image)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		case b.Audio != nil:
			return nil, fmt.Errorf("prompt block %d is audio: harness does not accept audio (promptCapabilities.audio is false)", i)
		default:
			return nil, fmt.Errorf("prompt block %d has no content harness knows", i)
		}
	}
	return out, nil
}

// blockType returns the type a decoded block declares and the type its
// variant stands for; they differ for a block the SDK fit into a variant
// it is not (any object decodes as text).
func blockType(b acp.ContentBlock) (declared, variant string) {
	switch {
	case b.Text != nil:
		return b.Text.Type, "text"
	case b.Image != nil:
		return b.Image.Type, "image"
	case b.Audio != nil:
		return b.Audio.Type, "audio"
	case b.ResourceLink != nil:
		return b.ResourceLink.Type, "resource_link"
	case b.Resource != nil:
		return b.Resource.Type, "resource"
	}
	return "", ""
}

// linkName names a resource after the last element of its URI.
func linkName(uri string) string {
	if i := strings.LastIndexByte(strings.TrimRight(uri, "/"), '/'); i >= 0 {
		if n := strings.TrimRight(uri, "/")[i+1:]; n != "" {
			return n
		}
	}
	return uri
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// quote quotes a session id for a message.
func quote(s string) string { return strconv.Quote(s) }
