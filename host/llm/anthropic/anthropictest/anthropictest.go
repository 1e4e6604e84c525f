// Package anthropictest is a recording fake of the Anthropic Messages API
// for tests (the provider's, the engine's and the command's): it answers
// POST /v1/messages with scripted replies in order, records every request's
// JSON body and headers, and refuses — 401 authentication_error, as the
// real API does — a request that does not carry the expected key in
// x-api-key or that carries an Authorization header (a key sent as a bearer
// token). Only tests import it.
package anthropictest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Reply is one scripted answer.
type Reply struct {
	// Status is the HTTP status; 0 means 200 with an SSE body.
	Status int
	// Header holds extra response headers (e.g. Retry-After).
	Header map[string]string
	// Body is sent as is, in small flushed pieces so that events are split
	// across reads.
	Body []byte
	// Block holds the response open until the request ends.
	Block bool
}

// AuthError is the body of the 401 a request with a wrong or missing
// x-api-key gets.
const AuthError = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_fake"}`

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	*httptest.Server
	t       testing.TB
	key     string
	mu      sync.Mutex
	replies []Reply
	reqs    []map[string]any
	headers []http.Header
}

// New starts a fake that expects key in x-api-key and answers with
// replies in order (a request beyond them fails the test); t's cleanup
// closes it.
func New(t testing.TB, key string, replies ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, key: key, replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		s.t.Errorf("request %s %s, want POST /v1/messages", r.Method, r.URL.Path)
	}
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &body); err != nil {
		s.t.Errorf("request body is not JSON: %v", err)
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, body)
	s.headers = append(s.headers, r.Header.Clone())
	n := len(s.reqs)
	var rp Reply
	ok := n <= len(s.replies)
	if ok {
		rp = s.replies[n-1]
	}
	s.mu.Unlock()
	if r.Header.Get("X-Api-Key") != s.key || r.Header.Get("Authorization") != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, AuthError)
		return
	}
	if !ok {
		s.t.Errorf("unexpected request %d", n)
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"no more replies"}}`, http.StatusBadRequest)
		return
	}
	ct := "text/event-stream"
	if rp.Status >= 400 {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	for k, v := range rp.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(max(rp.Status, http.StatusOK))
	for data := rp.Body; len(data) > 0; {
		k := min(len(data), 37)
		w.Write(data[:k])
		w.(http.Flusher).Flush()
		data = data[k:]
	}
	if rp.Block {
		<-r.Context().Done()
	}
}

// Len returns the number of requests received.
func (s *Server) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// Request returns the JSON body of request i (from 0).
func (s *Server) Request(i int) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.reqs) {
		s.t.Fatalf("request %d: only %d received", i, len(s.reqs))
	}
	return s.reqs[i]
}

// Header returns the headers of request i (from 0).
func (s *Server) Header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.headers) {
		s.t.Fatalf("request %d: only %d received", i, len(s.headers))
	}
	return s.headers[i]
}
