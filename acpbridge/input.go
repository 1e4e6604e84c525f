package acpbridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/harness-dev/harness/host/shorten"
)

// DefaultMaxMessageBytes bounds one inbound message unless
// Options.MaxMessageBytes says otherwise. It stays under the SDK's own
// 10 MiB line limit, past which the SDK would drop the connection.
const DefaultMaxMessageBytes = 8 << 20

// sdkLineLimit is the SDK's inbound line limit (bufio.Scanner's max token).
const sdkLineLimit = 10 << 20

// idPrefixBytes is how much of an oversized message is kept to find its id.
const idPrefixBytes = 64 << 10

// lockedWriter serialises whole-message writes to the client. The SDK writes
// each message with a single Write; so does the guard.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	// pending are lines to write after a response (commands.go).
	pending []pendingLine
	// answers, when set, sees every line written (answers.go).
	answers *answers
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if err == nil {
		l.flushAfterLocked(p)
		if l.answers != nil {
			l.answers.answered(p)
		}
	}
	return n, err
}

// guard reads the client's messages line by line and hands the well-formed
// ones to the SDK through sdk. It answers the rest itself, so that a bad
// line costs the client an error and never the connection: a line that is
// not JSON gets -32700; a JSON value that is not an object (batches
// included), or an object with neither method nor id, gets -32600; a line
// over max bytes gets -32600 naming the limit, with the request's id when it
// can be found at the start of the line. The SDK itself would log and drop
// the first kinds, and close the connection on the last.
type guard struct {
	in   io.Reader
	sdk  *io.PipeWriter
	out  io.Writer
	max  int
	warn func(msg string, args ...any)
	// onInitialize, when set, sees the line of each initialize request
	// before the SDK does (for the capabilities the SDK does not decode).
	onInitialize func(line []byte)
	// answers, when set, counts the requests handed to the SDK.
	answers *answers
}

// copy hands the client's messages to the SDK until in ends or the SDK
// stops reading; the caller closes sdk.
func (g *guard) copy() error {
	r := bufio.NewReaderSize(g.in, 64<<10)
	var line []byte
	for {
		line = line[:0]
		size, over, err := readLine(r, &line, g.max)
		if size > 0 {
			if over {
				g.reject(idOf(line), codeInvalidRequest,
					fmt.Sprintf("Invalid request: the message is %d bytes, over the limit of %d bytes", size, g.max))
			} else if werr := g.pass(line); werr != nil {
				return werr
			}
		}
		if err != nil {
			return err
		}
		if cap(line) > 1<<20 {
			line = nil // do not keep a big buffer for small messages
		}
	}
}

// readLine reads one line into *buf, without its newline. A line longer
// than max is read to its end but only its first idPrefixBytes are kept
// (over). size is the line's full length; an error ends the input.
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

// envelope is what the guard reads of a message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// pass hands a well-formed line to the SDK, or answers a bad one.
func (g *guard) pass(line []byte) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	var env envelope
	err := json.Unmarshal(line, &env)
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		g.reject(nil, codeParseError, "Parse error: the line is not valid JSON: "+shorten.OneLine(err.Error()))
		return nil
	case line[0] == '[':
		g.reject(nil, codeInvalidRequest, "Invalid request: JSON-RPC batches are not supported")
		return nil
	case line[0] != '{':
		g.reject(nil, codeInvalidRequest, "Invalid request: a message must be a JSON object")
		return nil
	case err != nil:
		g.reject(nil, codeInvalidRequest, "Invalid request: "+shorten.OneLine(err.Error()))
		return nil
	case env.Method == nil && len(env.ID) == 0:
		g.reject(nil, codeInvalidRequest, "Invalid request: a message needs a method or an id")
		return nil
	}
	if g.onInitialize != nil && env.Method != nil && *env.Method == "initialize" {
		g.onInitialize(line)
	}
	if g.answers != nil && env.Method != nil && len(env.ID) > 0 {
		g.answers.note(env.ID, *env.Method)
	}
	buf := make([]byte, len(line)+1)
	copy(buf, line)
	buf[len(line)] = '\n'
	_, err = g.sdk.Write(buf)
	return err
}

// reject answers a message the SDK never sees. id is the request's id when
// known (JSON), else null.
func (g *guard) reject(id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	g.warn("rejected a message from the client", "code", code, "error", msg)
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	if err != nil {
		return
	}
	g.out.Write(append(b, '\n'))
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
