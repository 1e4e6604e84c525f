package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// JSON-RPC 2.0 error codes, and ACP's request cancelled.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternal         = -32603
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string {
	if e.Data == nil {
		return "jsonrpc error " + strconv.Itoa(e.Code) + ": " + e.Message
	}
	data, _ := json.Marshal(e.Data)
	return "jsonrpc error " + strconv.Itoa(e.Code) + ": " + e.Message + " " + string(data)
}

// MethodNotFound is the error for a method the handler does not serve.
func MethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "Method not found", Data: map[string]any{"method": method}}
}

// Kind is what a message is.
type Kind int

const (
	// KindRequest has a method and an id and wants a response.
	KindRequest Kind = iota + 1
	// KindNotification has a method and no id; it is never answered.
	KindNotification
	// KindResponse has an id and no method: the answer to a request.
	KindResponse
)

// Message is one decoded line. Params, Result and Error.Data stay raw for
// the receiver to decode into its own types.
type Message struct {
	Kind Kind
	// ID is the id as it was on the wire (a string, a number or null);
	// nil for a notification.
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	// Result and Error are those of a response; a response has one.
	Result json.RawMessage
	Error  *Error
}

// wire is a message as it is on the wire, for decoding.
type wire struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// Decode decodes one line (without its newline) into a message. A line
// that is not one message is an *Error to answer: -32700 when it is not
// JSON, -32600 when it is JSON but not a message (not an object, a batch,
// neither method nor id, a field of the wrong type).
func Decode(line []byte) (Message, *Error) {
	line = bytes.TrimSpace(line)
	var w wire
	err := json.Unmarshal(line, &w)
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn) || len(line) == 0:
		msg := "Parse error: the line is not valid JSON"
		if err != nil {
			msg += ": " + oneLine(err.Error())
		}
		return Message{}, &Error{Code: CodeParseError, Message: msg}
	case line[0] == '[':
		return Message{}, &Error{Code: CodeInvalidRequest, Message: "Invalid request: JSON-RPC batches are not supported"}
	case line[0] != '{':
		return Message{}, &Error{Code: CodeInvalidRequest, Message: "Invalid request: a message must be a JSON object"}
	case err != nil:
		return Message{}, &Error{Code: CodeInvalidRequest, Message: "Invalid request: " + oneLine(err.Error())}
	}
	m := Message{ID: w.ID, Params: w.Params, Result: w.Result, Error: w.Error}
	switch {
	case w.Method != nil && w.ID != nil:
		m.Kind, m.Method = KindRequest, *w.Method
	case w.Method != nil:
		m.Kind, m.Method = KindNotification, *w.Method
	case w.ID != nil:
		m.Kind = KindResponse // never answered, even when malformed
		return m, nil
	default:
		return Message{}, &Error{Code: CodeInvalidRequest, Message: "Invalid request: a message needs a method or an id"}
	}
	if m.Kind == KindRequest {
		if _, ok := idKey(m.ID); !ok {
			return Message{}, &Error{Code: CodeInvalidRequest, Message: "Invalid request: an id must be a string, a number or null"}
		}
	}
	return m, nil
}

// idKey is an id in one spelling, so that 7, 7.0 and 7e0 match: a string
// as its compact JSON, an integer in decimal, null as "null". It fails
// for what is no id (an object, an array, a bool).
func idKey(id json.RawMessage) (string, bool) {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return "", false
	}
	switch c := id[0]; {
	case c == 'n' && string(id) == "null":
		return "null", true
	case c == '"':
		var s string
		if json.Unmarshal(id, &s) != nil {
			return "", false
		}
		b, _ := json.Marshal(s)
		return string(b), true
	case c == '-' || '0' <= c && c <= '9':
		if n, err := strconv.ParseInt(string(id), 10, 64); err == nil {
			return strconv.FormatInt(n, 10), true
		}
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil {
			return "", false
		}
		if f == float64(int64(f)) && f > -1<<53 && f < 1<<53 {
			return strconv.FormatInt(int64(f), 10), true
		}
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}

// oneLine keeps a message on one line, bounded.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// outMessage is a message as written; jsonrpc comes first, then id,
// method, params, result and error, each only when set.
type outMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// encode encodes m as one line, newline included.
func encode(m outMessage) ([]byte, error) {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Encoded is one message encoded as a line, ready for [Conn.Send].
type Encoded []byte

// EncodeNotification encodes a notification of method with params
// (encoding/json's encoding of them).
func EncodeNotification(method string, params any) (Encoded, error) {
	b, err := encode(outMessage{Method: method, Params: params})
	if err != nil {
		return nil, encodeError(method, err)
	}
	return b, nil
}

func encodeError(method string, err error) error {
	return errors.New("encode " + method + ": " + err.Error())
}
