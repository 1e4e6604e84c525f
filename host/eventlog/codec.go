package eventlog

import (
	"bytes"
	"fmt"
)

// The codec of a log's lines, for a store that keeps them elsewhere than
// in a file (one message per line): the same bytes a file holds, checked
// the same way.

// MarshalHeader returns h as the log's first line, without its '\n'. A
// zero Version is written as [Version].
func MarshalHeader(h Header) ([]byte, error) {
	if h.Version == 0 {
		h.Version = Version
	}
	b, err := encodeHeader(h)
	if err != nil {
		return nil, err
	}
	return b[:len(b)-1], nil
}

// UnmarshalHeader parses a header line (without '\n').
func UnmarshalHeader(line []byte) (Header, error) { return decodeHeader(line) }

// MarshalRecord returns r as one line, without its '\n', after the checks
// Append makes (seq, type, time, data).
func MarshalRecord(r Record) ([]byte, error) {
	if err := checkRecord(r); err != nil {
		return nil, fmt.Errorf("record %d: %w", r.Seq, err)
	}
	b := appendRecord(nil, r)
	return b[:len(b)-1], nil
}

// UnmarshalRecord parses a record line (without '\n'). Its Data aliases
// line.
func UnmarshalRecord(line []byte) (Record, error) {
	if bytes.IndexByte(line, '\n') >= 0 {
		return Record{}, fmt.Errorf("%w: a record holds a newline", ErrCorrupt)
	}
	return decodeLine(line)
}
