package script

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/shorten"
)

// maxLine bounds one line of a script.
const maxLine = 16 << 20

// Provider plays a script. It is safe for concurrent use; each call to
// Stream consumes the next answer.
type Provider struct {
	mu      sync.Mutex
	answers []answer
	next    int
	reqs    []llm.Request
}

// answer is one scripted response, ready to stream.
type answer struct {
	line   int
	chunks []llm.Chunk
	err    string // end with this provider error instead of usage and finish
	hang   bool   // end by waiting for cancellation instead of usage and finish
	delay  time.Duration
	expect *expect
	// when, if set, makes the answer match-driven: it answers the first
	// request it matches, out of order.
	when *expect
	used bool
}

// line is the JSON shape of one script line.
type line struct {
	Reasoning string     `json:"reasoning"`
	Text      string     `json:"text"`
	ToolCalls []toolCall `json:"toolCalls"`
	Finish    string     `json:"finish"`
	Usage     *usage     `json:"usage"`
	Error     string     `json:"error"`
	Hang      bool       `json:"hang"`
	DelayMs   int        `json:"delayMs"`
	Expect    *expect    `json:"expect"`
	When      *expect    `json:"when"`
}

type toolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Arguments *string         `json:"arguments"`
}

type usage struct {
	Input     int `json:"input"`
	Output    int `json:"output"`
	CacheRead int `json:"cacheRead"`
	Reasoning int `json:"reasoning"`
}

type expect struct {
	LastRole     string   `json:"lastRole"`
	LastContains string   `json:"lastContains"`
	ToolsInclude []string `json:"toolsInclude"`
	// Model and Effort, when set, must be the request's model name and
	// reasoning effort.
	Model  string `json:"model"`
	Effort string `json:"effort"`
	// Contains lists texts some message of the request must hold.
	Contains []string `json:"contains"`
	// MaxTokens bounds the request's size as llm.EstimateRequest counts it.
	MaxTokens int `json:"maxTokens"`
	// Images, when set, is how many images the request's messages carry
	// in all (llm.Message.Images: a prompt's, a tool result's); 0 is
	// written "images": 0 and means none.
	Images *int `json:"images"`
	// SystemContains lists texts the request's system prompt must hold.
	SystemContains []string `json:"systemContains"`
}

// Open loads the script in the file at path.
func Open(path string) (*Provider, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	defer f.Close()
	answers, err := parse(f)
	if err != nil {
		return nil, fmt.Errorf("load script %s: %w", path, err)
	}
	return &Provider{answers: answers}, nil
}

// Load reads a script from r.
func Load(r io.Reader) (*Provider, error) {
	answers, err := parse(r)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	return &Provider{answers: answers}, nil
}

// parse reads every line of a script.
func parse(r io.Reader) ([]answer, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var answers []answer
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || bytes.HasPrefix(b, []byte("//")) || b[0] == '#' {
			continue
		}
		a, err := decodeLine(b, n)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		answers = append(answers, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("after line %d: %w", n, err)
	}
	return answers, nil
}

// decodeLine decodes and checks line n and prepares its chunks.
func decodeLine(b []byte, n int) (answer, error) {
	if b[0] != '{' {
		return answer{}, errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l line
	if err := dec.Decode(&l); err != nil {
		return answer{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return answer{}, errors.New("more than one JSON value on the line")
	}

	switch llm.Finish(l.Finish) {
	case "", llm.FinishStop, llm.FinishToolCalls, llm.FinishMaxTokens, llm.FinishRefusal:
	default:
		return answer{}, fmt.Errorf("unknown finish %q: use stop, tool_calls, max_tokens or refusal", l.Finish)
	}
	if l.DelayMs < 0 {
		return answer{}, fmt.Errorf("negative delayMs %d", l.DelayMs)
	}
	if l.Error != "" && l.Hang {
		return answer{}, errors.New("both error and hang: choose one")
	}
	if (l.Error != "" || l.Hang) && (l.Finish != "" || l.Usage != nil) {
		return answer{}, errors.New("finish and usage are never sent on an error or hang line")
	}
	if u := l.Usage; u != nil && (u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.Reasoning < 0) {
		return answer{}, errors.New("negative usage")
	}
	for name, e := range map[string]*expect{"expect": l.Expect, "when": l.When} {
		if e == nil {
			continue
		}
		switch llm.Role(e.LastRole) {
		case "", llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
		default:
			return answer{}, fmt.Errorf("unknown %s.lastRole %q: use user, assistant or tool", name, e.LastRole)
		}
	}

	a := answer{line: n, err: l.Error, hang: l.Hang, delay: time.Duration(l.DelayMs) * time.Millisecond, expect: l.Expect, when: l.When}
	for _, w := range words(l.Reasoning) {
		a.chunks = append(a.chunks, llm.Chunk{Kind: llm.ChunkReasoning, Text: w})
	}
	for _, w := range words(l.Text) {
		a.chunks = append(a.chunks, llm.Chunk{Kind: llm.ChunkText, Text: w})
	}
	for i, tc := range l.ToolCalls {
		if tc.Name == "" {
			return answer{}, fmt.Errorf("toolCalls[%d] has no name", i)
		}
		args := "{}"
		switch {
		case tc.Arguments != nil && tc.Args != nil:
			return answer{}, fmt.Errorf("toolCalls[%d] has both args and arguments: choose one", i)
		case tc.Arguments != nil:
			args = *tc.Arguments
		case tc.Args != nil:
			var buf bytes.Buffer
			if err := json.Compact(&buf, tc.Args); err != nil {
				return answer{}, fmt.Errorf("toolCalls[%d].args: %w", i, err)
			}
			args = buf.String()
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", n, i+1)
		}
		// A first delta with the ID, the name and the start of the
		// arguments, then one or two more argument deltas.
		first, rest := cut(args, 5)
		mid, last := cut(rest, len(rest)/2)
		if mid == "" {
			mid, last = last, ""
		}
		a.chunks = append(a.chunks, llm.Chunk{Kind: llm.ChunkToolCall,
			ToolCall: llm.ToolCallDelta{Index: i, ID: id, Name: tc.Name, Arguments: first}})
		a.chunks = append(a.chunks, llm.Chunk{Kind: llm.ChunkToolCall,
			ToolCall: llm.ToolCallDelta{Index: i, Arguments: mid}})
		if last != "" {
			a.chunks = append(a.chunks, llm.Chunk{Kind: llm.ChunkToolCall,
				ToolCall: llm.ToolCallDelta{Index: i, Arguments: last}})
		}
	}
	if a.err != "" || a.hang {
		return a, nil
	}
	if u := l.Usage; u != nil {
		a.chunks = append(a.chunks, llm.Chunk{Kind: llm.ChunkUsage, Usage: llm.Usage{
			InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead, ReasoningTokens: u.Reasoning}})
	}
	finish := llm.Finish(l.Finish)
	if finish == "" {
		finish = llm.FinishStop
		if len(l.ToolCalls) > 0 {
			finish = llm.FinishToolCalls
		}
	}
	a.chunks = append(a.chunks, llm.Chunk{Kind: llm.ChunkFinish, Finish: finish})
	return a, nil
}

// words cuts s before every word that follows whitespace, so the pieces
// keep their whitespace and concatenate to s.
func words(s string) []string {
	var out []string
	start, prevSpace := 0, false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if !space && prevSpace && i > start {
			out = append(out, s[start:i])
			start = i
		}
		prevSpace = space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// cut splits s at the first rune boundary at or after n bytes.
func cut(s string, n int) (string, string) {
	if n >= len(s) {
		return s, ""
	}
	for n < len(s) && !utf8.RuneStart(s[n]) {
		n++
	}
	return s[:n], s[n:]
}

// Stream plays the next answer of the script. The answer is taken when
// Stream is called; the request is recorded for [Provider.Requests].
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	n, total := len(p.reqs), len(p.answers)
	var a *answer
	for i := range p.answers {
		if w := &p.answers[i]; w.when != nil && !w.used && w.matches(req) {
			a = w
			break
		}
	}
	for a == nil && p.next < total {
		if c := &p.answers[p.next]; c.when == nil && !c.used {
			a = c
		}
		p.next++
	}
	if a != nil {
		a.used = true
	}
	p.mu.Unlock()

	return func(yield func(llm.Chunk, error) bool) {
		if a == nil {
			yield(llm.Chunk{}, fmt.Errorf("script: no response left for request %d (the script has %d)", n, total))
			return
		}
		if err := a.check(req); err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		for i, c := range a.chunks {
			if i > 0 && a.delay > 0 && !sleep(ctx, a.delay) {
				yield(llm.Chunk{}, ctx.Err())
				return
			}
			if err := ctx.Err(); err != nil {
				yield(llm.Chunk{}, err)
				return
			}
			if !yield(c, nil) {
				return
			}
		}
		switch {
		case a.err != "":
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrServer, Provider: "script", Message: a.err})
		case a.hang:
			<-ctx.Done()
			yield(llm.Chunk{}, ctx.Err())
		}
	}
}

// check tests the answer's expectations against the request.
func (a *answer) check(req llm.Request) error { return a.test(a.expect, req) }

// matches reports whether req matches the answer's "when".
func (a *answer) matches(req llm.Request) bool { return a.test(a.when, req) == nil }

// test tests expectations e against the request.
func (a *answer) test(e *expect, req llm.Request) error {
	if e == nil {
		return nil
	}
	if e.Model != "" && req.Model != e.Model {
		return fmt.Errorf("script: line %d expected model %q, got %q", a.line, e.Model, req.Model)
	}
	if e.Effort != "" && req.ReasoningEffort != e.Effort {
		return fmt.Errorf("script: line %d expected reasoning effort %q, got %q", a.line, e.Effort, req.ReasoningEffort)
	}
	var last *llm.Message
	if len(req.Messages) > 0 {
		last = &req.Messages[len(req.Messages)-1]
	}
	if e.LastRole != "" {
		if last == nil {
			return fmt.Errorf("script: line %d expected a last message with role %q, got no messages", a.line, e.LastRole)
		}
		if string(last.Role) != e.LastRole {
			return fmt.Errorf("script: line %d expected the last message's role %q, got %q", a.line, e.LastRole, last.Role)
		}
	}
	if e.LastContains != "" {
		if last == nil {
			return fmt.Errorf("script: line %d expected a last message containing %q, got no messages", a.line, e.LastContains)
		}
		if !strings.Contains(last.Text, e.LastContains) {
			return fmt.Errorf("script: line %d expected the last message to contain %q, got %q", a.line, e.LastContains, shorten.Bytes(last.Text, 120))
		}
	}
	for _, want := range e.Contains {
		if !slices.ContainsFunc(req.Messages, func(m llm.Message) bool { return holds(m, want) }) {
			return fmt.Errorf("script: line %d expected a message containing %q, got none", a.line, shorten.Bytes(want, 120))
		}
	}
	for _, want := range e.SystemContains {
		if !strings.Contains(req.System, want) {
			return fmt.Errorf("script: line %d expected the system prompt to contain %q, got none", a.line, shorten.Bytes(want, 120))
		}
	}
	if e.MaxTokens > 0 {
		if n := llm.EstimateRequest(req); n > e.MaxTokens {
			return fmt.Errorf("script: line %d expected a request of at most %d tokens, got %d", a.line, e.MaxTokens, n)
		}
	}
	if e.Images != nil {
		n := 0
		for _, m := range req.Messages {
			n += len(m.Images)
		}
		if n != *e.Images {
			return fmt.Errorf("script: line %d expected %d images in the request's messages, got %d", a.line, *e.Images, n)
		}
	}
	for _, name := range e.ToolsInclude {
		if !slices.ContainsFunc(req.Tools, func(t llm.ToolSpec) bool { return t.Name == name }) {
			names := make([]string, len(req.Tools))
			for i, t := range req.Tools {
				names[i] = t.Name
			}
			return fmt.Errorf("script: line %d expected tool %q among the request's tools, got %q", a.line, name, names)
		}
	}
	return nil
}

// holds reports whether a message's text or one of its tool calls'
// arguments contains want.
func holds(m llm.Message, want string) bool {
	if strings.Contains(m.Text, want) {
		return true
	}
	for _, c := range m.ToolCalls {
		if strings.Contains(c.Arguments, want) {
			return true
		}
	}
	return false
}

// sleep waits for d or until ctx is done; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Requests returns the requests received so far, in order. The requests
// share their slices with the caller that sent them.
func (p *Provider) Requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.reqs)
}

// Remaining returns how many answers are left.
func (p *Provider) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, a := range p.answers {
		if !a.used && a.when == nil {
			n++
		}
	}
	return n
}
