package openai

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/llm"
)

type testEvent struct{ Name, Data string }

func readEvents(r io.Reader) ([]testEvent, error) {
	d := newSSEDecoder(r)
	var evs []testEvent
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, testEvent{ev.name, string(ev.data)})
	}
}

func TestSSEDecoder(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []testEvent
	}{
		{"one event", "data: {}\n\n", []testEvent{{"", "{}"}}},
		{"no space after the colon", "data:{}\n\n", []testEvent{{"", "{}"}}},
		{"only one space is dropped", "data:  x\n\n", []testEvent{{"", " x"}}},
		{"multi-line data joined with newlines", "data: a\ndata: b\ndata\n\n", []testEvent{{"", "a\nb\n"}}},
		{"comments and other fields ignored", ": keep-alive\nid: 7\nretry: 100\nfoo: bar\ndata: x\n\n", []testEvent{{"", "x"}}},
		{"event name", "event: error\ndata: {\"error\":{}}\n\ndata: y\n\n", []testEvent{{"error", `{"error":{}}`}, {"", "y"}}},
		{"event without data is not dispatched, name reset", "event: ping\n\ndata: z\n\n", []testEvent{{"", "z"}}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []testEvent{{"", "a"}, {"", "b"}}},
		{"lone CR", "data: a\r\rdata: b\r\r", []testEvent{{"", "a"}, {"", "b"}}},
		{"BOM", "\xEF\xBB\xBFdata: a\n\n", []testEvent{{"", "a"}}},
		{"blank lines between events", "\n\n\ndata: a\n\n\n\ndata: b\n\n", []testEvent{{"", "a"}, {"", "b"}}},
		{"an event cut by the end is dropped", "data: a\n\ndata: b", []testEvent{{"", "a"}}},
		{"an event without its blank line is dropped", "data: a\n\ndata: b\n", []testEvent{{"", "a"}}},
		{"empty data is an event", "data\n\n", []testEvent{{"", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readEvents(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSSELineTooLong(t *testing.T) {
	in := "data: " + strings.Repeat("x", maxLineBytes) + "\n\n"
	_, err := readEvents(strings.NewReader(in))
	if !errors.Is(err, errLineTooLong) {
		t.Fatalf("error %v, want errLineTooLong", err)
	}
}

// decodeAll runs a recorded stream through the SSE and chunk decoders, as
// attempt does, and returns the chunks and the final error.
func decodeAll(t testing.TB, r io.Reader) []any {
	p, err := New(Config{Name: "fuzz", BaseURL: "http://localhost/v1", APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	sse := newSSEDecoder(r)
	dec := &chunkDecoder{p: p}
	for !dec.done {
		ev, err := sse.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return append(out, err.Error())
		}
		if err := dec.event(ev); err != nil {
			return append(out, err.Error())
		}
		for _, c := range dec.take() {
			out = append(out, c)
		}
	}
	if err := dec.end(); err != nil {
		return append(out, err.Error())
	}
	for _, c := range dec.take() {
		out = append(out, c)
	}
	return out
}

// FuzzSSE feeds arbitrary bytes to the SSE and chunk decoders: they must
// not panic, an error must end the output, a Finish must be last and no
// error may show the key. The seeds are the recordings in testdata, which
// makes minimizing slow; run it with a bounded minimizing time:
//
//	go test ./host/llm/openai -run '^$' -fuzz FuzzSSE -fuzztime 1m -fuzzminimizetime 5s
func FuzzSSE(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.sse"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "data: [DONE]\n\n", "data\n\n", ":\n", "\r", "\r\n\r\n", "event: error\ndata: nope\n\n",
		`data: {"choices":[{"delta":{"tool_calls":[{"index":-1,"function":{"arguments":{"a":1}}}]}}]}` + "\n\n",
		`data: {"choices":[{"delta":{"tool_calls":[{},{"id":"a"},{"id":"a"}]}}],"usage":{"prompt_tokens":-5,"prompt_cache_hit_tokens":9}}` + "\n\n",
		`data: {"error":"boom"}` + "\n\n",
		`data: {"error":{"code":"` + testKey + `","message":"` + testKey + `"}}` + "\n\n",
		`data: {"choices":[{"delta":{},"finish_reason":"insufficient_system_resource"}]}` + "\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := decodeAll(t, strings.NewReader(string(b)))
		for i, x := range out {
			switch x := x.(type) {
			case string: // an error, last
				if i != len(out)-1 {
					t.Fatalf("error %q is not last", x)
				}
				if strings.Contains(x, testKey) {
					t.Fatalf("error %q shows the key", x)
				}
			case llm.Chunk:
				if x.Kind == llm.ChunkFinish && i != len(out)-1 {
					t.Fatalf("finish is not last")
				}
			}
		}
	})
}
