package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// MaxProposedBytes bounds the data of one proposed event: a larger one is
// refused.
const MaxProposedBytes = 1 << 20

// Why Propose refuses an event's data (besides its size and type).
var (
	ErrNotJSON   = errors.New("data is not valid JSON")
	ErrNotObject = errors.New("data is not a JSON object")
)

// Proposed is an event a tool proposes for the session log, checked once
// (Propose): its data is one JSON object, on one line, within
// MaxProposedBytes, and its type is a host type (whose payload the
// session decodes) or of the form CheckForeign accepts. Its fields are
// unexported, so that every Proposed was made by Propose, and the session
// appends one without checking it again (session.AppendProposed). The
// zero Proposed is not valid: appending it fails.
type Proposed struct {
	typ  Type
	data json.RawMessage
}

// Propose checks an event a tool proposes and returns it as a Proposed.
// The data is copied (compacted when it spans lines). The error says in
// one line why the event is refused.
func Propose(t Type, data json.RawMessage) (Proposed, error) {
	if len(data) > MaxProposedBytes {
		return Proposed{}, fmt.Errorf("data is %d bytes, more than %d", len(data), MaxProposedBytes)
	}
	if !json.Valid(data) {
		return Proposed{}, ErrNotJSON
	}
	if !isObject(data) {
		return Proposed{}, ErrNotObject
	}
	if bytes.IndexByte(data, '\n') >= 0 {
		var b bytes.Buffer
		_ = json.Compact(&b, data) // valid, checked above
		data = b.Bytes()
	} else {
		data = bytes.Clone(data)
	}
	if !IsKnown(t) {
		if err := CheckForeign(t, data); err != nil {
			return Proposed{}, err
		}
	}
	return Proposed{typ: t, data: data}, nil
}

// Type is the event's type.
func (p Proposed) Type() Type { return p.typ }

// Data is the event's data, one line of JSON; the caller must not modify
// it.
func (p Proposed) Data() json.RawMessage { return p.data }

// CheckForeign checks an event of a type outside the host's vocabulary
// (IsKnown false): its type has the form family/name[/more], each part of
// letters, digits, '.', '_' and '-', at most 128 bytes in all, and its
// data, valid JSON, is an object.
func CheckForeign(t Type, data []byte) error {
	if !validType(string(t)) {
		return errors.New("not a valid event type: want family/name of letters, digits, '.', '_', '-'")
	}
	if !isObject(data) {
		return ErrNotObject
	}
	return nil
}

// isObject reports whether valid JSON data is an object.
func isObject(data []byte) bool {
	d := bytes.TrimLeft(data, " \t\r\n")
	return len(d) > 0 && d[0] == '{'
}

// validType reports whether t has the form CheckForeign describes.
func validType(t string) bool {
	if len(t) == 0 || len(t) > 128 {
		return false
	}
	slash, part := false, 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '/':
			if part == 0 {
				return false
			}
			slash, part = true, 0
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
			part++
		default:
			return false
		}
	}
	return slash && part > 0
}
