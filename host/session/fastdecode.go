package session

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/harness-dev/harness/host/event"
)

// fastDecode decodes the payload of a host event without encoding/json —
// the bulk of the cost of reopening a long session. It is one
// table-driven reader over plans built from host/event's payload structs
// (their fields and json tags), so a payload field is added in host/event
// only. It reads only the shapes encoding/json writes for these types; on
// anything else — an unknown or repeated key, an escaped key, a null where a
// value is expected, a number that is not a small integer — it gives up (ok
// false) and the caller falls back to event.Decode. So whatever it returns
// is what event.Decode would (FuzzFastDecode checks this).
func fastDecode(t event.Type, data []byte) (p event.Payload, ok bool) {
	pl := payloadPlans.byType[t]
	if pl == nil {
		return nil, false
	}
	// The struct is decoded into a pooled scratch value and copied once
	// into the interface: one allocation, as a hand-written decoder has.
	ptr := pl.scratch.Get() // a *T for typ T, or nil
	if ptr == nil {
		ptr = reflect.New(pl.typ).Interface()
	}
	v := reflect.ValueOf(ptr).Elem()
	v.SetZero()
	r := jreader{b: data, ok: true}
	r.object(pl, v)
	r.space()
	if r.ok && r.i == len(r.b) {
		p, ok = v.Interface().(event.Payload), true
	}
	pl.scratch.Put(ptr)
	return p, ok
}

// payloadPlans is the immutable table fastDecode reads: one plan per host
// payload type, built once from the structs themselves.
var payloadPlans = buildPlans(
	event.TurnStart{}, event.TurnEnd{}, event.StepStart{}, event.StepEnd{}, event.UserMessage{},
	event.AssistantMessage{}, event.ToolCall{}, event.ToolResult{}, event.TodoWrite{}, event.Permission{},
	event.ConfigOption{},
	event.PermissionMode{},
	event.SandboxPolicy{},
	event.Compact{},
)

// plans maps each host type to its plan; errs says why a type has none
// (a field of a kind the reader does not handle — TestPlans fails on it).
type plans struct {
	byType map[event.Type]*plan
	errs   []error
}

func buildPlans(ps ...event.Payload) plans {
	out := plans{byType: make(map[event.Type]*plan, len(ps))}
	for _, p := range ps {
		pl, err := planFor(reflect.TypeOf(p))
		if err != nil {
			out.errs = append(out.errs, fmt.Errorf("fast decode %s: %w", p.EventType(), err))
			continue
		}
		out.byType[p.EventType()] = pl
	}
	return out
}

// kind is how the reader fills one field.
type kind uint8

const (
	kindInt         kind = iota // int, int32, int64 (at most 9 digits)
	kindString                  // string or a named string type
	kindBool                    // bool
	kindPtrStruct               // *struct, or null
	kindSliceStruct             // []struct, or null
	kindSliceString             // []string, or null
)

// plan is how to read one struct type: its fields by JSON name.
type plan struct {
	typ    reflect.Type
	fields []field
	// scratch pools pointers to typ (as any), for fastDecode.
	scratch sync.Pool
}

type field struct {
	name  string // the JSON key, exactly
	index int    // in typ's fields
	kind  kind
	elem  *plan // for kindPtrStruct and kindSliceStruct
}

// planFor builds the plan of struct type t from its exported fields and
// their json tag names (options such as omitempty do not change decoding).
func planFor(t reflect.Type) (*plan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	pl := &plan{typ: t}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		if sf.Anonymous {
			return nil, fmt.Errorf("%s.%s: embedded fields are not handled", t, sf.Name)
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = sf.Name
		}
		f := field{name: name, index: i}
		ft := sf.Type
		switch {
		case ft.Kind() == reflect.Int || ft.Kind() == reflect.Int32 || ft.Kind() == reflect.Int64:
			f.kind = kindInt
		case ft.Kind() == reflect.String:
			f.kind = kindString
		case ft.Kind() == reflect.Bool:
			f.kind = kindBool
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
			f.kind = kindPtrStruct
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			f.kind = kindSliceStruct
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			f.kind = kindSliceString
		default:
			return nil, fmt.Errorf("%s.%s: type %s is not handled; teach host/session's fast decoder this kind", t, sf.Name, ft)
		}
		if f.kind == kindPtrStruct || f.kind == kindSliceStruct {
			elem, err := planFor(ft.Elem())
			if err != nil {
				return nil, err
			}
			f.elem = elem
		}
		pl.fields = append(pl.fields, f)
	}
	if len(pl.fields) > 64 {
		return nil, fmt.Errorf("%s has more than 64 JSON fields", t)
	}
	return pl, nil
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

// object reads a JSON object into v, a settable struct of plan pl's type.
// A key must match a field's JSON name exactly and appear at most once.
func (r *jreader) object(pl *plan, v reflect.Value) {
	var seen uint64
	if !r.open('{') {
		return
	}
	for n := 0; r.next('}', &n); {
		k := r.key()
		fi := -1
		for i := range pl.fields {
			if string(k) == pl.fields[i].name {
				fi = i
				break
			}
		}
		if fi < 0 || seen&(1<<fi) != 0 {
			r.fail()
			return
		}
		seen |= 1 << fi
		r.value(&pl.fields[fi], v.Field(pl.fields[fi].index))
		if !r.ok {
			return
		}
	}
}

// value reads one field's value into fv.
func (r *jreader) value(f *field, fv reflect.Value) {
	switch f.kind {
	case kindInt:
		fv.SetInt(int64(r.integer()))
	case kindString:
		fv.SetString(r.str())
	case kindBool:
		fv.SetBool(r.boolean())
	case kindPtrStruct:
		if r.null() {
			fv.SetZero()
			return
		}
		e := reflect.New(f.elem.typ)
		r.object(f.elem, e.Elem())
		fv.Set(e)
	case kindSliceStruct, kindSliceString:
		if r.null() {
			fv.SetZero()
			return
		}
		if !r.open('[') {
			return
		}
		fv.SetZero()
		for m := 0; r.next(']', &m); {
			// Grow and SetLen work in place: no slice header per element.
			n := fv.Len()
			fv.Grow(1)
			fv.SetLen(n + 1)
			if ev := fv.Index(n); f.kind == kindSliceString {
				ev.SetString(r.str())
			} else {
				r.object(f.elem, ev)
			}
			if !r.ok {
				return
			}
		}
		if fv.IsNil() { // [] decodes to an empty slice, not nil
			fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
		}
	}
}
