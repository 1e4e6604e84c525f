package openai

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Limits of the SSE decoder.
const (
	maxLineBytes  = 8 << 20  // one line of the stream
	maxEventBytes = 16 << 20 // the joined data of one event
)

const (
	errLineTooLong  constError = "an SSE line is longer than 8 MiB"
	errEventTooLong constError = "an SSE event is larger than 16 MiB"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	name string // the "event" field, "" for the default "message"
	data []byte // the data lines joined with "\n"; valid until the next call
}

// sseDecoder reads server-sent events as the HTML standard defines them:
// lines end with "\n", "\r\n" or "\r"; a line starting with ":" is a comment;
// "field: value" loses one space after the colon; data lines are joined with
// "\n"; a blank line dispatches the event, unless it has no data; "id",
// "retry" and unknown fields are ignored; an event cut by the end of the
// stream is dropped.
type sseDecoder struct {
	sc      *bufio.Scanner
	started bool
	name    []byte
	data    []byte
	hasData bool
}

func newSSEDecoder(r io.Reader) *sseDecoder {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	sc.Split(scanSSELines)
	return &sseDecoder{sc: sc}
}

// Next returns the next event, io.EOF at the end of the stream, or the read
// error that ended it.
func (d *sseDecoder) Next() (sseEvent, error) {
	for d.sc.Scan() {
		line := d.sc.Bytes()
		if !d.started {
			d.started = true
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		if len(line) == 0 {
			if !d.hasData {
				d.name = d.name[:0]
				continue
			}
			ev := sseEvent{name: string(d.name), data: d.data}
			d.name, d.data, d.hasData = d.name[:0], nil, false
			return ev, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if len(d.data)+len(value)+1 > maxEventBytes {
				return sseEvent{}, errEventTooLong
			}
			if d.hasData {
				d.data = append(d.data, '\n')
			}
			d.data = append(d.data, value...)
			d.hasData = true
		case "event":
			d.name = append(d.name[:0], value...)
		}
	}
	if err := d.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return sseEvent{}, errLineTooLong
		}
		return sseEvent{}, err
	}
	return sseEvent{}, io.EOF
}

// scanSSELines splits at "\r\n", "\n" or a lone "\r".
func scanSSELines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		switch {
		case data[i] == '\n':
			return i + 1, data[:i], nil
		case i+1 < len(data):
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		case atEOF:
			return i + 1, data[:i], nil
		}
		return 0, nil, nil // a "\r" last: wait to see whether "\n" follows
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}
