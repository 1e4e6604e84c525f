package acpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"
)

// answerGrace bounds how long Serve waits, once the input has ended, for
// the answers to requests other than session/prompt (initialize,
// session/new, session/load…) before it closes the sessions.
const answerGrace = 5 * time.Second

// answers counts the client's requests the SDK has been handed and not yet
// answered. The SDK runs each request's handler in a goroutine of its own
// and keeps no count: when the input ends right after a request (`printf …
// | harness acp`, an editor that sends and closes), its connection is done
// before the handler has written the answer, and a Serve that returned then
// would let the process exit with the answer unwritten. Serve waits on
// answers instead.
//
// The guard notes each request it passes (note); the writer notes each
// response it writes (answered), matched by id. Requests to session/prompt
// are counted apart: their answers come when their turns end, which is
// after shutdown cancels them.
type answers struct {
	mu      sync.Mutex
	open    map[string]int // compact id → requests in flight with it
	prompts map[string]int // the same, for session/prompt
	change  chan struct{}  // closed and replaced on every answer
}

func newAnswers() *answers {
	return &answers{open: map[string]int{}, prompts: map[string]int{}, change: make(chan struct{})}
}

// responsePrefix starts every response the SDK writes (anyMessage's field
// order: jsonrpc, id, then result or error; requests and notifications
// from the agent have a method after the id).
var responsePrefix = []byte(`{"jsonrpc":"2.0","id":`)

// note counts a request with id and method the SDK is about to see.
func (a *answers) note(id json.RawMessage, method string) {
	key, ok := idKey(id)
	if !ok {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if method == "session/prompt" {
		a.prompts[key]++
	} else {
		a.open[key]++
	}
}

// answered sees a line written to the client and, when it is a response,
// counts its request as answered.
func (a *answers) answered(line []byte) {
	if !bytes.HasPrefix(line, responsePrefix) {
		return
	}
	// The id follows the prefix; a request from the agent has its method
	// next, a response its result or error.
	rest := line[len(responsePrefix):]
	dec := json.NewDecoder(bytes.NewReader(rest))
	var id json.RawMessage
	if dec.Decode(&id) != nil || bytes.HasPrefix(rest[dec.InputOffset():], []byte(`,"method"`)) {
		return
	}
	key, ok := idKey(id)
	if !ok {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range []map[string]int{a.open, a.prompts} {
		if m[key] > 0 {
			if m[key]--; m[key] == 0 {
				delete(m, key)
			}
			close(a.change)
			a.change = make(chan struct{})
			return
		}
	}
}

// wait waits until no request (or, with prompts, no session/prompt) is
// waiting for its answer, or ctx is done; it returns how many still are.
func (a *answers) wait(ctx context.Context, prompts bool) int {
	for {
		a.mu.Lock()
		m := a.open
		if prompts {
			m = a.prompts
		}
		n := 0
		for _, c := range m {
			n += c
		}
		change := a.change
		a.mu.Unlock()
		if n == 0 {
			return 0
		}
		select {
		case <-change:
		case <-ctx.Done():
			return n
		}
	}
}

// idKey is a request id in one spelling (compact JSON); only strings and
// numbers are ids.
func idKey(id json.RawMessage) (string, bool) {
	id = bytes.TrimSpace(id)
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || '0' <= id[0] && id[0] <= '9') {
		return "", false
	}
	var buf bytes.Buffer
	if json.Compact(&buf, id) != nil {
		return "", false
	}
	return buf.String(), true
}
