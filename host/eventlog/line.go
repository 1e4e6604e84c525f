package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Version is the header format version this package writes and reads.
const Version = 1

// maxTypeLen bounds the length of a record type.
const maxTypeLen = 128

// Header is line 1 of a log.
type Header struct {
	// Version is the format version; Create fills in [Version] when zero.
	Version   int
	ID        string
	CreatedAt time.Time
	// Cwd is the session's working directory.
	Cwd string
	// Parent is the id of the session this one was started from, if any.
	Parent string
	// ForkSeq, on a fork of Parent, is where it branches off: its records
	// 0..ForkSeq-1 are copies of the parent's, its own start at ForkSeq.
	// 0: not a fork (a subagent's child, or no parent).
	ForkSeq int64
}

// Record is one line after the header.
type Record struct {
	Seq  int64
	Time time.Time
	// Type names the payload; see the package doc for the allowed bytes.
	Type string
	// Data is the payload, any JSON value, kept byte for byte.
	Data json.RawMessage
}

// headerJSON is the on-disk shape of a Header; field order is the file's.
type headerJSON struct {
	Type          string    `json:"type"`
	Version       int       `json:"version"`
	ID            string    `json:"id"`
	CreatedAt     time.Time `json:"createdAt"`
	Cwd           string    `json:"cwd"`
	ParentSession string    `json:"parentSession,omitempty"`
	ForkSeq       int64     `json:"forkSeq,omitempty"`
}

// encodeHeader returns the header line, with its '\n'.
func encodeHeader(h Header) ([]byte, error) {
	if h.ID == "" {
		return nil, errors.New("header has no id")
	}
	if err := checkTime(h.CreatedAt); err != nil {
		return nil, fmt.Errorf("header createdAt: %w", err)
	}
	b, err := json.Marshal(headerJSON{
		Type:          "session",
		Version:       h.Version,
		ID:            h.ID,
		CreatedAt:     h.CreatedAt.UTC(),
		Cwd:           h.Cwd,
		ParentSession: h.Parent,
		ForkSeq:       h.ForkSeq,
	})
	if err != nil {
		return nil, fmt.Errorf("encode header: %w", err)
	}
	return append(b, '\n'), nil
}

// decodeHeader parses line 1 (without its '\n'). It reads type and version
// first, so that a newer format is reported as such rather than as an
// unknown field.
func decodeHeader(line []byte) (Header, error) {
	var probe struct {
		Type    string `json:"type"`
		Version *int   `json:"version"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return Header{}, fmt.Errorf("bad header: %w", err)
	}
	if probe.Type != "session" {
		return Header{}, fmt.Errorf("bad header: type %q, want \"session\"", probe.Type)
	}
	if probe.Version == nil {
		return Header{}, errors.New("bad header: no version")
	}
	if *probe.Version != Version {
		return Header{}, fmt.Errorf("%w %d (this harness reads version %d)", ErrVersion, *probe.Version, Version)
	}
	var h headerJSON
	if err := strictUnmarshal(line, &h); err != nil {
		return Header{}, fmt.Errorf("bad header: %w", err)
	}
	if h.ID == "" {
		return Header{}, errors.New("bad header: no id")
	}
	if h.CreatedAt.IsZero() {
		return Header{}, errors.New("bad header: no createdAt")
	}
	if h.ForkSeq < 0 || (h.ForkSeq > 0 && h.ParentSession == "") {
		return Header{}, fmt.Errorf("bad header: forkSeq %d without a parent session", h.ForkSeq)
	}
	return Header{Version: h.Version, ID: h.ID, CreatedAt: h.CreatedAt, Cwd: h.Cwd, Parent: h.ParentSession, ForkSeq: h.ForkSeq}, nil
}

// checkRecord reports why r cannot be written, if it cannot.
func checkRecord(r Record) error {
	if r.Seq < 0 {
		return fmt.Errorf("negative seq %d", r.Seq)
	}
	if err := checkType(r.Type); err != nil {
		return err
	}
	if err := checkTime(r.Time); err != nil {
		return err
	}
	if len(r.Data) == 0 {
		return errors.New("no data")
	}
	if !validJSON(r.Data) {
		return fmt.Errorf("data of %s is not valid JSON", r.Type)
	}
	return nil
}

// checkType enforces the record type alphabet: printable ASCII without
// quote or backslash, so a type needs no escaping.
func checkType(t string) error {
	if t == "" {
		return errors.New("empty type")
	}
	if len(t) > maxTypeLen {
		return fmt.Errorf("type is %d bytes, longer than %d", len(t), maxTypeLen)
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return fmt.Errorf("type %q has byte %#x", t, c)
		}
	}
	return nil
}

// checkTime refuses times RFC 3339 cannot carry.
func checkTime(t time.Time) error {
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return fmt.Errorf("time %v: year outside 0000-9999", t)
	}
	return nil
}

// appendRecord appends the line of a checked record, with its '\n', to buf.
// The envelope is written by hand: seq, time, type, data in that order.
func appendRecord(buf []byte, r Record) []byte {
	buf = append(buf, `{"seq":`...)
	buf = strconv.AppendInt(buf, r.Seq, 10)
	buf = append(buf, `,"time":"`...)
	buf = r.Time.UTC().AppendFormat(buf, time.RFC3339Nano)
	buf = append(buf, `","type":"`...)
	buf = append(buf, r.Type...)
	buf = append(buf, `","data":`...)
	if bytes.IndexByte(r.Data, '\n') >= 0 {
		// Only whitespace can hold a raw newline in valid JSON; compact it
		// away so the record stays on one line.
		w := bytes.NewBuffer(buf)
		_ = json.Compact(w, r.Data) // r.Data was checked valid
		buf = w.Bytes()
	} else {
		buf = append(buf, r.Data...)
	}
	return append(buf, '}', '\n')
}

// decodeLine parses one record line (without its '\n'). Data aliases line.
// Lines in the exact form appendRecord writes take a fast path that decodes
// the envelope without reflection; anything else goes through encoding/json
// and must still be an object with exactly seq, time, type and data.
func decodeLine(line []byte) (Record, error) {
	if r, ok := decodeFast(line); ok {
		return r, nil
	}
	return decodeSlow(line)
}

const (
	prefixSeq  = `{"seq":`
	prefixTime = `,"time":"`
	prefixType = `","type":"`
	prefixData = `","data":`
)

// decodeFast decodes a line in appendRecord's form. ok is false for any
// other line, including every invalid one; decodeSlow then decides.
func decodeFast(line []byte) (r Record, ok bool) {
	p := line
	if !bytes.HasPrefix(p, []byte(prefixSeq)) {
		return r, false
	}
	p = p[len(prefixSeq):]

	// seq: a JSON integer without sign, leading zero or exponent.
	n := 0
	for n < len(p) && p[n] >= '0' && p[n] <= '9' {
		n++
	}
	if n == 0 || n > 18 || (n > 1 && p[0] == '0') {
		return r, false
	}
	for _, c := range p[:n] {
		r.Seq = r.Seq*10 + int64(c-'0')
	}
	p = p[n:]

	if !bytes.HasPrefix(p, []byte(prefixTime)) {
		return r, false
	}
	p = p[len(prefixTime):]
	q := bytes.IndexByte(p, '"')
	if q < 0 || bytes.IndexByte(p[:q], '\\') >= 0 {
		return r, false
	}
	if err := r.Time.UnmarshalText(p[:q]); err != nil || checkTime(r.Time) != nil {
		return r, false
	}
	p = p[q:]

	if !bytes.HasPrefix(p, []byte(prefixType)) {
		return r, false
	}
	p = p[len(prefixType):]
	q = bytes.IndexByte(p, '"')
	if q < 0 || checkTypeBytes(p[:q]) != nil {
		return r, false
	}
	typ := p[:q]
	p = p[q:]

	if !bytes.HasPrefix(p, []byte(prefixData)) {
		return r, false
	}
	p = p[len(prefixData):]
	if len(p) < 2 || p[len(p)-1] != '}' {
		return r, false
	}
	data := p[: len(p)-1 : len(p)-1]
	if !validJSON(data) {
		return r, false
	}
	r.Type = string(typ)
	r.Data = data
	return r, true
}

// checkTypeBytes is checkType without converting to a string.
func checkTypeBytes(t []byte) error {
	if len(t) == 0 || len(t) > maxTypeLen {
		return errors.New("bad type length")
	}
	for _, c := range t {
		if c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return errors.New("bad type byte")
		}
	}
	return nil
}

// decodeSlow decodes any JSON spelling of a record with encoding/json.
func decodeSlow(line []byte) (Record, error) {
	var v struct {
		Seq  *int64          `json:"seq"`
		Time *time.Time      `json:"time"`
		Type *string         `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := strictUnmarshal(line, &v); err != nil {
		return Record{}, err
	}
	switch {
	case v.Seq == nil:
		return Record{}, errors.New("record has no seq")
	case v.Time == nil:
		return Record{}, errors.New("record has no time")
	case v.Type == nil:
		return Record{}, errors.New("record has no type")
	case v.Data == nil:
		return Record{}, errors.New("record has no data")
	}
	r := Record{Seq: *v.Seq, Time: *v.Time, Type: *v.Type, Data: v.Data}
	if r.Seq < 0 {
		return Record{}, fmt.Errorf("negative seq %d", r.Seq)
	}
	if err := checkType(r.Type); err != nil {
		return Record{}, err
	}
	if err := checkTime(r.Time); err != nil {
		return Record{}, err
	}
	return r, nil
}

// strictUnmarshal decodes exactly one JSON value into v, refusing unknown
// fields and trailing data.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON object")
	}
	return nil
}
