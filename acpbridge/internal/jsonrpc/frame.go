package jsonrpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
)

// idPrefixBytes is how much of an oversized line is kept to find its id.
const idPrefixBytes = 64 << 10

// readLine reads one line into *buf, without its newline. A line longer
// than max is read to its end but only its first idPrefixBytes are kept
// (over). size is the line's full length; an error ends the input (io.EOF
// after a last line without a newline, which is returned with it).
func readLine(r *bufio.Reader, buf *[]byte, max int) (size int, over bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		data := frag
		if err == nil {
			data = frag[:len(frag)-1]
		}
		size += len(data)
		if !over && size > max {
			over = true
			*buf = (*buf)[:min(len(*buf), idPrefixBytes)]
		}
		if !over {
			*buf = append(*buf, data...)
		} else if keep := idPrefixBytes - len(*buf); keep > 0 {
			*buf = append(*buf, data[:min(keep, len(data))]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return size, over, err
		}
	}
}

// idOf finds the id of a message from the start of its line: the value of
// the top-level "id" key, if it comes before the line was cut. It returns
// nil when it cannot tell, or when the id is not a string or a number.
func idOf(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			if len(v) > 0 && (v[0] == '"' || v[0] == '-' || '0' <= v[0] && v[0] <= '9') {
				return v
			}
			return nil
		}
	}
	return nil
}
