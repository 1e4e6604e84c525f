package openai

import (
	"bytes"
	"cmp"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm"
)

// testKey is the API key of the tests; it must never show in an error or a
// log line.
const testKey = "sk-test-0123456789abcdef"

// reply is one scripted answer of the fake server.
type reply struct {
	status int               // default 200
	header map[string]string // default Content-Type text/event-stream
	file   string            // a testdata file, sent in small flushed pieces
	body   string            // sent as is when file is empty
	serve  http.HandlerFunc  // when set, answers instead
}

type captured struct {
	path   string
	header http.Header
	body   []byte
}

// server replays its replies in order, one per request, and records the
// requests.
type server struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	replies []reply
	reqs    []captured
}

func newServer(t *testing.T, replies ...reply) *server {
	t.Helper()
	s := &server{t: t, replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.reqs = append(s.reqs, captured{path: r.URL.Path, header: r.Header.Clone(), body: body})
	n := len(s.reqs)
	var rp reply
	ok := n <= len(s.replies)
	if ok {
		rp = s.replies[n-1]
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("unexpected request %d", n)
		http.Error(w, "no more replies", http.StatusTeapot)
		return
	}
	if rp.serve != nil {
		rp.serve(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(cmp.Or(rp.status, http.StatusOK))
	data := []byte(rp.body)
	if rp.file != "" {
		data = readTestdata(s.t, rp.file)
	}
	writeInPieces(w, data)
}

// writeInPieces sends data in odd-sized flushed pieces, so events and line
// endings are cut across reads.
func writeInPieces(w http.ResponseWriter, data []byte) {
	const piece = 97
	for len(data) > 0 {
		n := min(piece, len(data))
		if _, err := w.Write(data[:n]); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		data = data[n:]
	}
}

func (s *server) requests() []captured {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]captured(nil), s.reqs...)
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newTestProvider returns a provider for s with fast retries and a logger
// writing to the returned buffer.
func newTestProvider(t *testing.T, s *server, edit ...func(*Config)) (*Provider, *bytes.Buffer) {
	t.Helper()
	logs := new(bytes.Buffer)
	cfg := Config{
		Name:      "test",
		BaseURL:   s.URL + "/v1/",
		APIKey:    testKey,
		KeyHint:   "set TEST_API_KEY",
		Model:     "test-model",
		Logger:    hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Trace}),
		RetryBase: time.Millisecond,
		RetryMax:  5 * time.Millisecond,
	}
	for _, f := range edit {
		f(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, logs
}

// collect drains a stream, checking the contract: nothing after an error or
// a Finish chunk.
func collect(t *testing.T, seq iter.Seq2[llm.Chunk, error]) ([]llm.Chunk, error) {
	t.Helper()
	var chunks []llm.Chunk
	var err error
	finished := false
	for c, e := range seq {
		if err != nil {
			t.Fatalf("stream went on after error %v", err)
		}
		if finished {
			t.Fatalf("stream went on after Finish: %+v, %v", c, e)
		}
		if e != nil {
			err = e
			continue
		}
		chunks = append(chunks, c)
		finished = c.Kind == llm.ChunkFinish
	}
	if err == nil && !finished {
		t.Fatalf("stream ended without Finish or error")
	}
	return chunks, err
}

func simpleRequest() llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}
}

// Chunk constructors for expectations.

func texts(pieces ...string) []llm.Chunk {
	var cs []llm.Chunk
	for _, p := range pieces {
		cs = append(cs, llm.Chunk{Kind: llm.ChunkText, Text: p})
	}
	return cs
}

func reasonings(pieces ...string) []llm.Chunk {
	var cs []llm.Chunk
	for _, p := range pieces {
		cs = append(cs, llm.Chunk{Kind: llm.ChunkReasoning, Text: p})
	}
	return cs
}

func call(index int, id, name, args string) llm.Chunk {
	return llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: index, ID: id, Name: name, Arguments: args}}
}

func args(index int, pieces ...string) []llm.Chunk {
	var cs []llm.Chunk
	for _, p := range pieces {
		cs = append(cs, call(index, "", "", p))
	}
	return cs
}

func usage(in, out, cached, reasoning int) llm.Chunk {
	return llm.Chunk{Kind: llm.ChunkUsage, Usage: llm.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: cached, ReasoningTokens: reasoning}}
}

func finish(f llm.Finish) llm.Chunk { return llm.Chunk{Kind: llm.ChunkFinish, Finish: f} }

func concat(parts ...any) []llm.Chunk {
	var cs []llm.Chunk
	for _, p := range parts {
		switch p := p.(type) {
		case llm.Chunk:
			cs = append(cs, p)
		case []llm.Chunk:
			cs = append(cs, p...)
		default:
			panic("concat: not a chunk")
		}
	}
	return cs
}
