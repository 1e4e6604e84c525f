package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line string
		kind       Kind
		id, method string
		code       int    // of the error, 0 for none
		msg        string // in the error's message
	}{
		{name: "request", line: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, kind: KindRequest, id: "1", method: "initialize"},
		{name: "string id", line: ` {"id":"a","method":"m"} `, kind: KindRequest, id: `"a"`, method: "m"},
		{name: "null id", line: `{"id":null,"method":"m"}`, kind: KindRequest, id: "null", method: "m"},
		{name: "empty method", line: `{"id":2,"method":""}`, kind: KindRequest, id: "2"},
		{name: "notification", line: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, kind: KindNotification, method: "session/cancel"},
		{name: "result", line: `{"jsonrpc":"2.0","id":3,"result":{}}`, kind: KindResponse, id: "3"},
		{name: "error", line: `{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"x"}}`, kind: KindResponse, id: "3"},
		{name: "id alone", line: `{"id":4}`, kind: KindResponse, id: "4"},
		{name: "not json", line: `this is not json`, code: CodeParseError, msg: "not valid JSON"},
		{name: "cut", line: `{"jsonrpc":"2.0","id":9,"method":`, code: CodeParseError, msg: "Parse error"},
		{name: "empty", line: ``, code: CodeParseError, msg: "Parse error"},
		{name: "batch", line: `[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, code: CodeInvalidRequest, msg: "batches are not supported"},
		{name: "number", line: `42`, code: CodeInvalidRequest, msg: "must be a JSON object"},
		{name: "string", line: `"hi"`, code: CodeInvalidRequest, msg: "must be a JSON object"},
		{name: "neither", line: `{"jsonrpc":"2.0"}`, code: CodeInvalidRequest, msg: "needs a method or an id"},
		{name: "method not a string", line: `{"id":1,"method":5}`, code: CodeInvalidRequest, msg: "Invalid request"},
		{name: "object id", line: `{"id":{"a":1},"method":"m"}`, code: CodeInvalidRequest, msg: "an id must be"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := Decode([]byte(tc.line))
			if tc.code != 0 {
				if err == nil || err.Code != tc.code || !strings.Contains(err.Message, tc.msg) {
					t.Fatalf("Decode(%s) = %+v, %v; want error %d containing %q", tc.line, m, err, tc.code, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode(%s): %v", tc.line, err)
			}
			if m.Kind != tc.kind || string(m.ID) != tc.id || m.Method != tc.method {
				t.Errorf("Decode(%s) = kind %d, id %s, method %q; want %d, %s, %q", tc.line, m.Kind, m.ID, m.Method, tc.kind, tc.id, tc.method)
			}
		})
	}
}

func TestIDKey(t *testing.T) {
	t.Parallel()
	tests := map[string]string{`7`: "7", `7.0`: "7", `7e0`: "7", `-3`: "-3", `"7"`: `"7"`, `"\u0061"`: `"a"`, `null`: "null", `1.5`: "1.5"}
	for in, want := range tests {
		if got, ok := idKey(json.RawMessage(in)); !ok || got != want {
			t.Errorf("idKey(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{`{}`, `[1]`, `true`, ``, `"x`} {
		if got, ok := idKey(json.RawMessage(in)); ok {
			t.Errorf("idKey(%s) = %q, want no id", in, got)
		}
	}
}

// FuzzDecode: Decode never panics; what it accepts is a JSON object whose
// kind matches its fields and whose request id has a key; what it refuses
// is a parse error or an invalid request with a message.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `{"method":"m"}`, `{"id":"x","result":null}`,
		`{"id":2,"error":{"code":1,"message":"m","data":[1]}}`, `[1]`, `42`, `{}`, `not json`, `{"id":{},"method":"m"}`,
		`{"id":1e400,"method":"m"}`, `{"id":-0.0,"method":"m"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := Decode(line)
		if err != nil {
			if (err.Code != CodeParseError && err.Code != CodeInvalidRequest) || err.Message == "" {
				t.Fatalf("Decode(%q) refused with %+v", line, err)
			}
			if _, merr := json.Marshal(err); merr != nil {
				t.Fatalf("Decode(%q): error not encodable: %v", line, merr)
			}
			return
		}
		trimmed := bytes.TrimSpace(line)
		if !json.Valid(trimmed) || trimmed[0] != '{' {
			t.Fatalf("Decode(%q) accepted a line that is not a JSON object", line)
		}
		switch m.Kind {
		case KindRequest:
			if _, ok := idKey(m.ID); !ok {
				t.Fatalf("Decode(%q): a request whose id %s has no key", line, m.ID)
			}
		case KindNotification:
			if m.ID != nil {
				t.Fatalf("Decode(%q): a notification with id %s", line, m.ID)
			}
		case KindResponse:
			if m.ID == nil || m.Method != "" {
				t.Fatalf("Decode(%q): a response without id or with method %q", line, m.Method)
			}
		default:
			t.Fatalf("Decode(%q): kind %d", line, m.Kind)
		}
	})
}
