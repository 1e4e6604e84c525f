package eventlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Repair says what [Open] cut from the tail of a log (or, for [Read], what it
// ignored). The zero Repair means the file ended cleanly.
type Repair struct {
	// Line is the line number where the cut began.
	Line int
	// Offset is where the cut began: the file's size after the repair.
	Offset int64
	// Bytes is how many bytes were cut.
	Bytes int64
	// Reason says what was wrong with them.
	Reason string
}

// IsZero reports whether nothing was cut.
func (r Repair) IsZero() bool { return r.Bytes == 0 }

func (r Repair) String() string {
	if r.IsZero() {
		return "clean tail"
	}
	return fmt.Sprintf("cut %d bytes from line %d (offset %d): %s", r.Bytes, r.Line, r.Offset, r.Reason)
}

// scanned is what a scan of a whole file found.
type scanned struct {
	header Header
	next   int64 // the seq after the last good record
	end    int64 // the offset after the last good line
	repair Repair
}

// scan parses a whole log held in data, calling visit for each record in
// order, and locates a torn tail without touching the file. Record data
// aliases data.
func scan(path string, data []byte, visit func(Record) error) (scanned, error) {
	var s scanned

	// A crash can leave the tail of a file as zeros (the size was extended,
	// the data blocks were not written).
	n := len(data)
	for n > 0 && data[n-1] == 0 {
		n--
	}

	nl := bytes.IndexByte(data[:n], '\n')
	if nl < 0 {
		if n == 0 {
			return s, &CorruptError{Path: path, Line: 1, Err: errors.New("no header: the file is empty")}
		}
		return s, &CorruptError{Path: path, Line: 1, Err: errors.New("no header: line 1 has no newline")}
	}
	h, err := decodeHeader(data[:nl])
	if err != nil {
		if errors.Is(err, ErrVersion) {
			return s, fmt.Errorf("%s: %w", path, err)
		}
		return s, &CorruptError{Path: path, Line: 1, Err: err}
	}
	s.header = h

	pos, line := nl+1, 2
	for pos < n {
		i := bytes.IndexByte(data[pos:n], '\n')
		if i < 0 {
			s.repair = Repair{Line: line, Reason: "the final line has no newline"}
			break
		}
		// A line that ends in '\n' was written whole (Append writes the
		// line with its '\n' in one write): if it does not parse it is
		// damage, even as the last line, never a torn write.
		r, err := decodeLine(data[pos : pos+i])
		if err != nil {
			return s, &CorruptError{Path: path, Line: line, Err: err}
		}
		if r.Seq != s.next {
			if s.next == 0 {
				err = fmt.Errorf("seq %d, want 0 for the first record", r.Seq)
			} else {
				err = fmt.Errorf("seq %d follows %d", r.Seq, s.next-1)
			}
			return s, &CorruptError{Path: path, Line: line, Err: err}
		}
		if visit != nil {
			if err := visit(r); err != nil {
				return s, err
			}
		}
		s.next++
		pos += i + 1
		line++
	}
	s.end = int64(pos)
	if pos < len(data) {
		if s.repair.Reason == "" {
			s.repair = Repair{Line: line, Reason: "NUL bytes after the last line"}
		}
		s.repair.Offset = int64(pos)
		s.repair.Bytes = int64(len(data) - pos)
	}
	return s, nil
}

// readAll reads f from its current offset to EOF, sizing the buffer from
// Stat. The buffer is never reused, so records may alias it.
func readAll(f *os.File) ([]byte, error) {
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Size() < 1<<40 {
		size = int(fi.Size())
	}
	data := make([]byte, 0, size+512)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}
