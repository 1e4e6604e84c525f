package anthropic

import (
	"context"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/internal/retry"
)

// attempt sends the request once and yields what arrives. It returns nil
// when the stream finished or the consumer stopped.
func (p *Provider) attempt(ctx context.Context, model string, prm sdk.MessageNewParams, out *retry.Emitter) error {
	stream := p.client.Messages.NewStreaming(ctx, prm)
	defer stream.Close()
	d := decoder{model: model}
	for stream.Next() {
		for _, c := range d.event(stream.Current()) {
			if !out.Emit(c) {
				return nil
			}
		}
		if d.done {
			return nil
		}
	}
	if err := stream.Err(); err != nil {
		return p.classify(ctx, err, model)
	}
	if d.finish != "" { // message_delta came but message_stop did not: accept it
		for _, c := range d.end() {
			if !out.Emit(c) {
				return nil
			}
		}
		return nil
	}
	return &llm.Error{Kind: llm.ErrTransport, Provider: Name,
		Message: "the stream ended before the answer was complete"}
}

// decoder turns the Messages stream events into chunks.
type decoder struct {
	model    string // the model requested (not a dated id the answer may name), for the blocks
	usage    llm.Usage
	finish   llm.Finish
	done     bool
	blocks   map[int64]*block
	hasUsage bool
}

// block is a content block being streamed.
type block struct {
	typ       string
	text      []byte // thinking text
	signature string
	args      bool // a tool_use block received argument text
}

func (d *decoder) event(ev sdk.MessageStreamEventUnion) []llm.Chunk {
	if d.blocks == nil {
		d.blocks = map[int64]*block{}
	}
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		d.usage.InputTokens = int(u.InputTokens)
		d.usage.CacheReadTokens = int(u.CacheReadInputTokens)
		d.usage.CacheWriteTokens = int(u.CacheCreationInputTokens)
		d.usage.OutputTokens = int(u.OutputTokens)
		d.hasUsage = true
	case "content_block_start":
		cb := ev.ContentBlock
		b := &block{typ: cb.Type}
		d.blocks[ev.Index] = b
		switch cb.Type {
		case "text":
			if cb.Text != "" {
				return []llm.Chunk{{Kind: llm.ChunkText, Text: cb.Text}}
			}
		case "thinking":
			b.text, b.signature = append(b.text, cb.Thinking...), cb.Signature
			if cb.Thinking != "" {
				return []llm.Chunk{{Kind: llm.ChunkReasoning, Text: cb.Thinking}}
			}
		case "redacted_thinking":
			return []llm.Chunk{{Kind: llm.ChunkBlock, Block: llm.Block{Provider: Name, Model: d.model, Type: "redacted_thinking", Data: cb.Data}}}
		case "tool_use":
			return []llm.Chunk{{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: int(ev.Index), ID: cb.ID, Name: cb.Name}}}
		}
	case "content_block_delta":
		b := d.blocks[ev.Index]
		switch ev.Delta.Type {
		case "text_delta":
			if ev.Delta.Text != "" {
				return []llm.Chunk{{Kind: llm.ChunkText, Text: ev.Delta.Text}}
			}
		case "thinking_delta":
			if b != nil {
				b.text = append(b.text, ev.Delta.Thinking...)
			}
			if ev.Delta.Thinking != "" {
				return []llm.Chunk{{Kind: llm.ChunkReasoning, Text: ev.Delta.Thinking}}
			}
		case "signature_delta":
			if b != nil {
				b.signature += ev.Delta.Signature
			}
		case "input_json_delta":
			if ev.Delta.PartialJSON == "" {
				return nil
			}
			if b != nil {
				b.args = true
			}
			return []llm.Chunk{{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: int(ev.Index), Arguments: ev.Delta.PartialJSON}}}
		}
	case "content_block_stop":
		b := d.blocks[ev.Index]
		delete(d.blocks, ev.Index)
		switch {
		case b == nil:
		case b.typ == "thinking":
			return []llm.Chunk{{Kind: llm.ChunkBlock, Block: llm.Block{Provider: Name, Model: d.model, Type: "thinking", Text: string(b.text), Signature: b.signature}}}
		case b.typ == "tool_use" && !b.args:
			return []llm.Chunk{{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: int(ev.Index), Arguments: "{}"}}}
		}
	case "message_delta":
		d.finish = finish(ev.Delta.StopReason)
		u := ev.Usage
		if u.JSON.OutputTokens.Valid() {
			d.usage.OutputTokens = int(u.OutputTokens)
		}
		// The final counts, where the delta carries them, replace message_start's.
		if u.InputTokens > 0 {
			d.usage.InputTokens = int(u.InputTokens)
		}
		if u.CacheReadInputTokens > 0 {
			d.usage.CacheReadTokens = int(u.CacheReadInputTokens)
		}
		if u.CacheCreationInputTokens > 0 {
			d.usage.CacheWriteTokens = int(u.CacheCreationInputTokens)
		}
		d.hasUsage = true
	case "message_stop":
		return d.end()
	}
	return nil
}

// end returns the usage and finish chunks and marks the stream done.
func (d *decoder) end() []llm.Chunk {
	d.done = true
	var cs []llm.Chunk
	if d.hasUsage {
		cs = append(cs, llm.Chunk{Kind: llm.ChunkUsage, Usage: d.usage})
	}
	return append(cs, llm.Chunk{Kind: llm.ChunkFinish, Finish: cmpFinish(d.finish)})
}

func cmpFinish(f llm.Finish) llm.Finish {
	if f == "" {
		return llm.FinishStop
	}
	return f
}

// finish maps a stop reason to a finish reason.
func finish(r sdk.StopReason) llm.Finish {
	switch r {
	case sdk.StopReasonToolUse:
		return llm.FinishToolCalls
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return llm.FinishMaxTokens
	case sdk.StopReasonRefusal:
		return llm.FinishRefusal
	case "":
		return ""
	}
	return llm.FinishStop
}
