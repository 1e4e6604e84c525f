package pluginhost

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
)

const (
	// tailLines is how many stderr lines a Client (and a zero LineTail) keeps.
	tailLines = 20
	// maxLineBytes caps one kept or relayed line.
	maxLineBytes = 4096
)

// LineTail keeps the last lines written to it, each cut at 4096 bytes,
// for the message that says why a child process died: Launch keeps a
// plugin's stderr in one, host/llm/llmproc harness-llm's, host/mcpclient
// an MCP stdio server's. A line may come in several writes (go-plugin
// writes the newline apart); a trailing "\r" is dropped. The zero LineTail
// keeps 20 lines; its methods may be called from any goroutine.
type LineTail struct {
	n       int
	mu      sync.Mutex
	partial []byte
	lines   []string // ring, oldest at next when full
	next    int
	full    bool
}

// NewLineTail returns a LineTail that keeps the last n lines (n > 0).
func NewLineTail(n int) *LineTail { return &LineTail{n: max(n, 1)} }

// Write keeps the lines of p; it never fails.
func (t *LineTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.appendPartial(p)
			break
		}
		t.appendPartial(p[:i])
		t.push(string(bytes.TrimRight(t.partial, "\r")))
		t.partial = t.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (t *LineTail) appendPartial(p []byte) {
	if room := maxLineBytes - len(t.partial); room > 0 {
		t.partial = append(t.partial, p[:min(room, len(p))]...)
	}
}

func (t *LineTail) push(line string) {
	if t.lines == nil {
		if t.n == 0 {
			t.n = tailLines
		}
		t.lines = make([]string, t.n)
	}
	t.lines[t.next] = line
	t.next = (t.next + 1) % t.n
	if t.next == 0 {
		t.full = true
	}
}

// Lines returns the kept lines, oldest first, including an unterminated
// last line.
func (t *LineTail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	if t.full {
		out = append(out, t.lines[t.next:]...)
	}
	out = append(out, t.lines[:t.next]...)
	if len(t.partial) > 0 {
		out = append(out, string(t.partial))
	}
	return out
}

// lastUsefulLine picks the line of a stderr tail that best says why a
// plugin died: the first line of a Go panic or fatal error if there is one,
// else the last non-empty line. hclog JSON lines are shown as their message
// and fields.
func lastUsefulLine(lines []string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return l
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(readableLine(lines[i])); l != "" {
			return l
		}
	}
	return ""
}

// readableLine turns an hclog JSON line into "message key=value …"; other
// lines are returned as they are.
func readableLine(line string) string {
	if !strings.HasPrefix(line, "{") {
		return line
	}
	var m map[string]any
	if json.Unmarshal([]byte(line), &m) != nil {
		return line
	}
	msg, ok := m["@message"].(string)
	if !ok {
		return line
	}
	var b strings.Builder
	b.WriteString(msg)
	keys := make([]string, 0, len(m))
	for k := range m {
		if !strings.HasPrefix(k, "@") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, err := json.Marshal(m[k])
		if err != nil {
			continue
		}
		b.WriteString(" " + k + "=" + string(v))
	}
	return b.String()
}

// logWriter relays the lines written to it into a logger. It receives what
// the plugin prints to its standard output and error after Serve starts
// (go-plugin's stdio stream).
type logWriter struct {
	logger hclog.Logger
	level  hclog.Level
	stream string
	tail   *LineTail // may be nil
	mu     sync.Mutex
	buf    []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxLineBytes {
		w.emit(w.buf)
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

func (w *logWriter) emit(line []byte) {
	if len(line) > maxLineBytes {
		line = line[:maxLineBytes]
	}
	s := strings.TrimRight(string(line), "\r")
	if w.tail != nil {
		_, _ = w.tail.Write([]byte(s + "\n"))
	}
	w.logger.Log(w.level, s, "stream", w.stream)
}
