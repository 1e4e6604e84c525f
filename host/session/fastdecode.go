package session

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/harness-dev/harness/host/event"
)

// fastDecode decodes the payload of a host event without reflection — the
// bulk of the cost of reopening a long session. It reads only the shapes
// encoding/json writes for these types; on anything else — an unknown or
// repeated key, an escaped key, a null where a value is expected, a number
// that is not a small integer — it gives up (ok false) and the caller falls
// back to event.Decode. So whatever it returns is what event.Decode would
// (FuzzFastDecode checks this).
func fastDecode(t event.Type, data []byte) (p event.Payload, ok bool) {
	r := jreader{b: data, ok: true}
	switch t {
	case event.TypeTurnStart:
		var v event.TurnStart
		r.turnStep(&v.Turn, nil)
		p = v
	case event.TypeStepStart:
		var v event.StepStart
		r.turnStep(&v.Turn, &v.Step)
		p = v
	case event.TypeStepEnd:
		var v event.StepEnd
		r.turnStep(&v.Turn, &v.Step)
		p = v
	case event.TypeTurnEnd:
		p = r.turnEnd()
	case event.TypeUserMessage:
		p = r.userMessage()
	case event.TypeAssistantMessage:
		p = r.assistantMessage()
	case event.TypeToolCall:
		p = r.toolCall()
	case event.TypeToolResult:
		p = r.toolResult()
	case event.TypeTodoWrite:
		p = r.todoWrite()
	default:
		return nil, false
	}
	r.space()
	if !r.ok || r.i != len(r.b) {
		return nil, false
	}
	return p, true
}

// jreader reads JSON from b; ok turns false, for good, at the first thing it
// does not handle. Every method is safe to call once ok is false.
type jreader struct {
	b  []byte
	i  int
	ok bool
}

func (r *jreader) fail() { r.ok = false }

func (r *jreader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// open consumes c, the start of a container.
func (r *jreader) open(c byte) bool {
	r.space()
	if r.ok && r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	r.fail()
	return false
}

// next moves to the next member or element of the container being read and
// reports whether there is one; *n counts those read so far.
func (r *jreader) next(close byte, n *int) bool {
	r.space()
	if !r.ok || r.i >= len(r.b) {
		r.fail()
		return false
	}
	if r.b[r.i] == close {
		r.i++
		return false
	}
	if *n > 0 {
		if r.b[r.i] != ',' {
			r.fail()
			return false
		}
		r.i++
	}
	*n++
	return true
}

// key reads `"name":` with an unescaped name.
func (r *jreader) key() []byte {
	r.space()
	if !r.ok || r.i >= len(r.b) || r.b[r.i] != '"' {
		r.fail()
		return nil
	}
	start := r.i + 1
	for j := start; j < len(r.b); j++ {
		switch r.b[j] {
		case '\\':
			r.fail()
			return nil
		case '"':
			r.i = j + 1
			r.space()
			if r.i >= len(r.b) || r.b[r.i] != ':' {
				r.fail()
				return nil
			}
			r.i++
			return r.b[start:j]
		}
	}
	r.fail()
	return nil
}

// once fails when bit is already set in *seen: a repeated key.
func (r *jreader) once(seen *uint32, bit uint) {
	if *seen&(1<<bit) != 0 {
		r.fail()
	}
	*seen |= 1 << bit
}

// null consumes a null if one comes next.
func (r *jreader) null() bool {
	r.space()
	if r.ok && len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "null" {
		r.i += 4
		return true
	}
	return false
}

func (r *jreader) boolean() bool {
	r.space()
	switch {
	case !r.ok:
	case len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "true":
		r.i += 4
		return true
	case len(r.b)-r.i >= 5 && string(r.b[r.i:r.i+5]) == "false":
		r.i += 5
		return false
	}
	r.fail()
	return false
}

// integer reads an integer of at most 9 digits, which fits an int anywhere.
func (r *jreader) integer() int {
	r.space()
	if !r.ok {
		return 0
	}
	neg := r.i < len(r.b) && r.b[r.i] == '-'
	if neg {
		r.i++
	}
	start, v := r.i, 0
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		v = v*10 + int(r.b[r.i]-'0')
		r.i++
	}
	n := r.i - start
	if n == 0 || n > 9 || n > 1 && r.b[start] == '0' {
		r.fail()
		return 0
	}
	if r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.fail() // not an integer: encoding/json refuses it for an int
		return 0
	}
	if neg {
		v = -v
	}
	return v
}

// str reads a string, decoding it exactly as encoding/json does: escapes,
// surrogate pairs, and U+FFFD for invalid UTF-8 or a lone surrogate.
func (r *jreader) str() string {
	r.space()
	if !r.ok || r.i >= len(r.b) || r.b[r.i] != '"' {
		r.fail()
		return ""
	}
	start := r.i + 1
	simple := true // ASCII without escapes
	j := start
	for ; j < len(r.b); j++ {
		c := r.b[j]
		if c == '"' {
			break
		}
		if c == '\\' {
			simple = false
			j++ // skip the escaped byte; \u's digits are plain
			continue
		}
		if c < ' ' {
			r.fail()
			return ""
		}
		if c >= utf8.RuneSelf {
			simple = false
		}
	}
	if j >= len(r.b) {
		r.fail()
		return ""
	}
	raw := r.b[start:j]
	r.i = j + 1
	if simple {
		return string(raw)
	}
	s, ok := unquote(raw)
	if !ok {
		r.fail()
	}
	return s
}

// unquote decodes the inside of a JSON string with escapes or non-ASCII
// bytes, as encoding/json does.
func unquote(raw []byte) (string, bool) {
	buf := make([]byte, 0, len(raw)+utf8.UTFMax)
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			if i+1 >= len(raw) {
				return "", false
			}
			switch raw[i+1] {
			case '"', '\\', '/':
				buf = append(buf, raw[i+1])
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				rr := u4(raw[i:])
				if rr < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, u4(raw[i:])); dec != unicode.ReplacementChar {
						buf = utf8.AppendRune(buf, dec)
						i += 6
						continue
					}
					rr = unicode.ReplacementChar
				}
				buf = utf8.AppendRune(buf, rr)
				continue
			default:
				return "", false
			}
			i += 2
		case c == '"' || c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			rr, size := utf8.DecodeRune(raw[i:])
			buf = utf8.AppendRune(buf, rr) // RuneError for invalid bytes, like encoding/json
			i += size
		}
	}
	return string(buf), true
}

// u4 decodes `\uXXXX` at the start of b, or returns -1.
func u4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// turnStep reads {"turn":N} or, with step, {"turn":N,"step":M}.
func (r *jreader) turnStep(turn, step *int) {
	var seen uint32
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "turn":
			r.once(&seen, 0)
			*turn = r.integer()
		case "step":
			if step == nil {
				r.fail()
				return
			}
			r.once(&seen, 1)
			*step = r.integer()
		default:
			r.fail()
		}
	}
}

func (r *jreader) turnEnd() (v event.TurnEnd) {
	var seen uint32
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "turn":
			r.once(&seen, 0)
			v.Turn = r.integer()
		case "reason":
			r.once(&seen, 1)
			v.Reason = event.Reason(r.str())
		case "error":
			r.once(&seen, 2)
			v.Error = r.str()
		case "usage":
			r.once(&seen, 3)
			v.Usage = r.usage()
		default:
			r.fail()
		}
	}
	return v
}

// usage reads a Usage object, or null.
func (r *jreader) usage() *event.Usage {
	if r.null() {
		return nil
	}
	var seen uint32
	u := new(event.Usage)
	if !r.open('{') {
		return nil
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "inputTokens":
			r.once(&seen, 0)
			u.InputTokens = r.integer()
		case "outputTokens":
			r.once(&seen, 1)
			u.OutputTokens = r.integer()
		case "cacheReadTokens":
			r.once(&seen, 2)
			u.CacheReadTokens = r.integer()
		case "reasoningTokens":
			r.once(&seen, 3)
			u.ReasoningTokens = r.integer()
		default:
			r.fail()
		}
	}
	return u
}

func (r *jreader) userMessage() (v event.UserMessage) {
	var seen uint32
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "content":
			r.once(&seen, 0)
			if r.null() {
				v.Content = nil
				continue
			}
			v.Content = []event.Content{}
			if !r.open('[') {
				return
			}
			for m := 0; r.next(']', &m); {
				v.Content = append(v.Content, r.content())
			}
		default:
			r.fail()
		}
	}
	return v
}

func (r *jreader) content() (c event.Content) {
	var seen uint32
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "type":
			r.once(&seen, 0)
			c.Type = event.ContentType(r.str())
		case "text":
			r.once(&seen, 1)
			c.Text = r.str()
		case "uri":
			r.once(&seen, 2)
			c.URI = r.str()
		case "name":
			r.once(&seen, 3)
			c.Name = r.str()
		case "mimeType":
			r.once(&seen, 4)
			c.MimeType = r.str()
		default:
			r.fail()
		}
	}
	return c
}

func (r *jreader) assistantMessage() (v event.AssistantMessage) {
	var seen uint32
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "turn":
			r.once(&seen, 0)
			v.Turn = r.integer()
		case "step":
			r.once(&seen, 1)
			v.Step = r.integer()
		case "text":
			r.once(&seen, 2)
			v.Text = r.str()
		case "reasoning":
			r.once(&seen, 3)
			v.Reasoning = r.str()
		case "toolCalls":
			r.once(&seen, 4)
			if r.null() {
				v.ToolCalls = nil
				continue
			}
			v.ToolCalls = []event.ToolCallRequest{}
			if !r.open('[') {
				return
			}
			for m := 0; r.next(']', &m); {
				v.ToolCalls = append(v.ToolCalls, r.toolCallRequest())
			}
		case "usage":
			r.once(&seen, 5)
			v.Usage = r.usage()
		case "finish":
			r.once(&seen, 6)
			v.Finish = r.str()
		default:
			r.fail()
		}
	}
	return v
}

func (r *jreader) toolCallRequest() (c event.ToolCallRequest) {
	var seen uint32
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "id":
			r.once(&seen, 0)
			c.ID = r.str()
		case "name":
			r.once(&seen, 1)
			c.Name = r.str()
		case "arguments":
			r.once(&seen, 2)
			c.Arguments = r.str()
		default:
			r.fail()
		}
	}
	return c
}

func (r *jreader) toolCall() (v event.ToolCall) {
	var seen uint32
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "turn":
			r.once(&seen, 0)
			v.Turn = r.integer()
		case "step":
			r.once(&seen, 1)
			v.Step = r.integer()
		case "callId":
			r.once(&seen, 2)
			v.CallID = r.str()
		case "name":
			r.once(&seen, 3)
			v.Name = r.str()
		case "args":
			r.once(&seen, 4)
			v.Args = r.str()
		case "plugin":
			r.once(&seen, 5)
			v.Plugin = r.plugin()
		default:
			r.fail()
		}
	}
	return v
}

// plugin reads a Plugin object, or null.
func (r *jreader) plugin() *event.Plugin {
	if r.null() {
		return nil
	}
	var seen uint32
	p := new(event.Plugin)
	if !r.open('{') {
		return nil
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "name":
			r.once(&seen, 0)
			p.Name = r.str()
		case "version":
			r.once(&seen, 1)
			p.Version = r.str()
		case "sha256":
			r.once(&seen, 2)
			p.SHA256 = r.str()
		case "pid":
			r.once(&seen, 3)
			p.PID = r.integer()
		default:
			r.fail()
		}
	}
	return p
}

func (r *jreader) toolResult() (v event.ToolResult) {
	var seen uint32
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "turn":
			r.once(&seen, 0)
			v.Turn = r.integer()
		case "step":
			r.once(&seen, 1)
			v.Step = r.integer()
		case "callId":
			r.once(&seen, 2)
			v.CallID = r.str()
		case "content":
			r.once(&seen, 3)
			v.Content = r.str()
		case "isError":
			r.once(&seen, 4)
			v.IsError = r.boolean()
		default:
			r.fail()
		}
	}
	return v
}

func (r *jreader) todoWrite() (v event.TodoWrite) {
	var seen uint32
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "todos":
			r.once(&seen, 0)
			if r.null() {
				v.Todos = nil
				continue
			}
			v.Todos = []event.Todo{}
			if !r.open('[') {
				return
			}
			for m := 0; r.next(']', &m); {
				v.Todos = append(v.Todos, r.todo())
			}
		default:
			r.fail()
		}
	}
	return v
}

func (r *jreader) todo() (t event.Todo) {
	var seen uint32
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		switch string(r.key()) {
		case "content":
			r.once(&seen, 0)
			t.Content = r.str()
		case "status":
			r.once(&seen, 1)
			t.Status = event.TodoStatus(r.str())
		default:
			r.fail()
		}
	}
	return t
}
