package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/internal/retry"
)

// maxWholeBytes bounds a non-streamed (application/json) answer.
const maxWholeBytes = 16 << 20

// attempt sends body once and passes the answer to out. It returns nil when
// the stream finished or the consumer stopped; otherwise the error (an
// *llm.Error's RetryAfter is the wait the server asked for). The client
// ends a request idle for IdleTimeout with retry.ErrIdle.
func (p *Provider) attempt(ctx context.Context, model string, body []byte, out *retry.Emitter) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build request: %w", redactURLError(err))
	}
	for k, v := range p.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if p.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.apiKey)
	}

	resp, err := p.client.Do(req)
	if err != nil {
		return p.sendError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return p.statusError(resp, model)
	}

	return p.read(ctx, resp, out)
}

// read decodes a 2xx answer and passes it to out. It returns nil when the
// stream finished or the consumer stopped.
func (p *Provider) read(ctx context.Context, resp *http.Response, out *retry.Emitter) error {
	var r io.Reader = resp.Body
	dec := &chunkDecoder{p: p}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/html":
		return &llm.Error{Kind: llm.ErrNotFound, Provider: p.name,
			Message: fmt.Sprintf("no chat completions endpoint at %s (it answered with a web page); check --base-url", p.shownURL)}
	case "application/json": // the server ignored "stream": true
		b, err := io.ReadAll(io.LimitReader(r, maxWholeBytes))
		if err != nil {
			return p.readError(ctx, err)
		}
		if err := dec.whole(b); err != nil {
			return err
		}
	default:
		sse := newSSEDecoder(r)
		for !dec.done {
			ev, err := sse.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return p.readError(ctx, err)
			}
			if err := dec.event(ev); err != nil {
				return err
			}
			if !emitAll(out, dec.take()) {
				return nil
			}
		}
	}
	if err := dec.end(); err != nil {
		return err
	}
	emitAll(out, dec.take())
	return nil
}

// Wire shapes of a chat.completion.chunk (and of a whole chat.completion,
// whose choices carry "message" instead of "delta").
type (
	wireChunk struct {
		Choices []wireChoice    `json:"choices"`
		Usage   *wireUsage      `json:"usage"`
		Error   json.RawMessage `json:"error"`
		Object  string          `json:"object"`
	}
	wireChoice struct {
		Delta        wireDelta  `json:"delta"`
		Message      *wireDelta `json:"message"`
		FinishReason *string    `json:"finish_reason"`
	}
	wireDelta struct {
		Content          *string        `json:"content"`
		ReasoningContent *string        `json:"reasoning_content"` // DeepSeek
		Reasoning        *string        `json:"reasoning"`         // ollama, vLLM, llama.cpp
		Refusal          *string        `json:"refusal"`           // OpenAI
		ToolCalls        []wireToolCall `json:"tool_calls"`
	}
	wireToolCall struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"` // a string; some servers send an object
		} `json:"function"`
	}
	wireUsage struct {
		PromptTokens         int  `json:"prompt_tokens"`
		CompletionTokens     int  `json:"completion_tokens"`
		PromptCacheHitTokens *int `json:"prompt_cache_hit_tokens"` // DeepSeek
		PromptTokensDetails  *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	}
)

// chunkDecoder turns decoded events into chunks. It holds the finish reason
// and the usage until the end of the stream.
type chunkDecoder struct {
	p       *Provider
	pending []llm.Chunk

	done      bool // "[DONE]" seen
	finish    llm.Finish
	sawFinish bool
	cutShort  string // a finish reason that means the answer is incomplete
	usage     *llm.Usage
	refusal   bool

	// Tool calls get indexes 0, 1, … in order of appearance; see toolCall.
	ids      []string       // call → its id, "" until known
	byIndex  map[int]int    // the server's index → call
	byID     map[string]int // id → call
	lastCall int
}

// take returns the chunks decoded so far and forgets them. The slice is
// reused by the next event or end.
func (d *chunkDecoder) take() []llm.Chunk {
	c := d.pending
	d.pending = d.pending[:0]
	return c
}

// event decodes one SSE event.
func (d *chunkDecoder) event(ev sseEvent) error {
	data := bytes.TrimSpace(ev.data)
	if string(data) == "[DONE]" {
		d.done = true
		return nil
	}
	if len(data) == 0 {
		return nil
	}
	var wc wireChunk
	if err := json.Unmarshal(data, &wc); err != nil {
		if ev.name == "error" {
			return d.p.streamError(data)
		}
		return &llm.Error{Kind: llm.ErrMalformed, Provider: d.p.name,
			Message: "cannot decode a stream chunk: " + d.p.clean(err.Error()), Err: err}
	}
	if ev.name == "error" || isSet(wc.Error) || wc.Object == "error" {
		return d.p.streamError(data)
	}
	d.chunk(&wc, false)
	return nil
}

// whole decodes a non-streamed answer.
func (d *chunkDecoder) whole(b []byte) error {
	var wc wireChunk
	if err := json.Unmarshal(b, &wc); err != nil {
		return &llm.Error{Kind: llm.ErrMalformed, Provider: d.p.name,
			Message: "cannot decode the answer: " + d.p.clean(err.Error()), Err: err}
	}
	if isSet(wc.Error) || wc.Object == "error" {
		return d.p.streamError(b)
	}
	d.chunk(&wc, true)
	d.done = true
	return nil
}

func isSet(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

func (d *chunkDecoder) chunk(wc *wireChunk, whole bool) {
	if wc.Usage != nil {
		d.usage = wc.Usage.usage()
	}
	if len(wc.Choices) == 0 {
		return
	}
	ch := wc.Choices[0]
	delta := &ch.Delta
	if whole && ch.Message != nil {
		delta = ch.Message
	}
	if r := delta.ReasoningContent; r != nil && *r != "" {
		d.pending = append(d.pending, llm.Chunk{Kind: llm.ChunkReasoning, Text: *r})
	} else if r := delta.Reasoning; r != nil && *r != "" {
		d.pending = append(d.pending, llm.Chunk{Kind: llm.ChunkReasoning, Text: *r})
	}
	if c := delta.Content; c != nil && *c != "" {
		d.pending = append(d.pending, llm.Chunk{Kind: llm.ChunkText, Text: *c})
	}
	if r := delta.Refusal; r != nil && *r != "" {
		d.refusal = true
		d.pending = append(d.pending, llm.Chunk{Kind: llm.ChunkText, Text: *r})
	}
	for i, tc := range delta.ToolCalls {
		d.toolCall(i, len(delta.ToolCalls), tc)
	}
	if fr := ch.FinishReason; fr != nil && *fr != "" {
		d.sawFinish = true
		d.finish, d.cutShort = mapFinish(*fr)
	}
}

// toolCall decodes the delta at position pos of n in a tool_calls array.
// The delta names its call by index; without an index, by id; without
// either, by its position when the array holds several, else it continues
// the last call. A known index arriving with a different id starts a new
// call (servers that number every call 0).
func (d *chunkDecoder) toolCall(pos, n int, tc wireToolCall) {
	if d.byIndex == nil {
		d.byIndex = make(map[int]int)
		d.byID = make(map[string]int)
	}
	key, keyed := pos, n > 1 && tc.ID == ""
	if tc.Index != nil {
		key, keyed = *tc.Index, true
	}
	var idx int
	var ok bool
	switch {
	case keyed:
		idx, ok = d.byIndex[key]
		if ok && tc.ID != "" && d.ids[idx] != "" && d.ids[idx] != tc.ID {
			ok = false
		}
	case tc.ID != "":
		idx, ok = d.byID[tc.ID]
	default:
		idx, ok = d.lastCall, len(d.ids) > 0
	}
	if !ok {
		idx = len(d.ids)
		d.ids = append(d.ids, "")
	}
	if keyed {
		d.byIndex[key] = idx
	}
	if tc.ID != "" {
		if d.ids[idx] == "" {
			d.ids[idx] = tc.ID
		}
		if _, known := d.byID[tc.ID]; !known {
			d.byID[tc.ID] = idx
		}
	}
	d.lastCall = idx
	args := arguments(tc.Function.Arguments)
	if tc.ID == "" && tc.Function.Name == "" && args == "" {
		return
	}
	d.pending = append(d.pending, llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{
		Index: idx, ID: tc.ID, Name: tc.Function.Name, Arguments: args,
	}})
}

// arguments returns a tool call's arguments as text: the string's value, or
// the raw JSON of servers that send an object.
func arguments(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// end queues the usage and the finish, or returns why the stream is not
// complete.
func (d *chunkDecoder) end() error {
	if d.cutShort != "" {
		return &llm.Error{Kind: llm.ErrServer, Provider: d.p.name,
			Message: fmt.Sprintf("the server cut the answer short (finish reason %q)", d.cutShort)}
	}
	if !d.sawFinish && !d.done {
		return &llm.Error{Kind: llm.ErrTransport, Provider: d.p.name, Message: "stream ended early, before a finish reason"}
	}
	f := d.finish
	switch {
	case !d.sawFinish && len(d.ids) > 0, f == llm.FinishStop && len(d.ids) > 0:
		f = llm.FinishToolCalls
	case !d.sawFinish:
		f = llm.FinishStop
	case f == llm.FinishStop && d.refusal:
		f = llm.FinishRefusal
	}
	if d.usage != nil {
		d.pending = append(d.pending, llm.Chunk{Kind: llm.ChunkUsage, Usage: *d.usage})
	}
	d.pending = append(d.pending, llm.Chunk{Kind: llm.ChunkFinish, Finish: f})
	return nil
}

// mapFinish maps a finish reason; cutShort is set for reasons that mean the
// answer is incomplete.
func mapFinish(reason string) (f llm.Finish, cutShort string) {
	switch reason {
	case "tool_calls", "function_call":
		return llm.FinishToolCalls, ""
	case "length":
		return llm.FinishMaxTokens, ""
	case "content_filter":
		return llm.FinishRefusal, ""
	case "insufficient_system_resource": // DeepSeek
		return llm.FinishStop, reason
	}
	return llm.FinishStop, ""
}

func (u *wireUsage) usage() *llm.Usage {
	cached := 0
	switch {
	case u.PromptCacheHitTokens != nil:
		cached = *u.PromptCacheHitTokens
	case u.PromptTokensDetails != nil:
		cached = u.PromptTokensDetails.CachedTokens
	}
	cached = min(max(cached, 0), max(u.PromptTokens, 0))
	out := &llm.Usage{
		InputTokens:     max(u.PromptTokens, 0) - cached,
		OutputTokens:    max(u.CompletionTokens, 0),
		CacheReadTokens: cached,
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = max(u.CompletionTokensDetails.ReasoningTokens, 0)
	}
	return out
}
