package responses

import (
	"context"
	"strings"

	"github.com/openai/openai-go/v3/responses"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/internal/retry"
)

// attempt sends the request once and yields what arrives. It returns nil
// when the stream finished or the consumer stopped.
func (p *Provider) attempt(ctx context.Context, model string, prm responses.ResponseNewParams, out *retry.Emitter) error {
	stream := p.client.NewStreaming(ctx, prm)
	defer stream.Close()
	d := decoder{model: model}
	for stream.Next() {
		cs, err := d.event(stream.Current())
		for _, c := range cs {
			if !out.Emit(c) {
				return nil
			}
		}
		if err != nil {
			return p.eventError(err)
		}
		if d.done {
			return nil
		}
	}
	if err := stream.Err(); err != nil {
		return p.classify(ctx, err, model)
	}
	return &llm.Error{Kind: llm.ErrTransport, Provider: Name,
		Message: "the stream ended before the answer was complete"}
}

// eventFailure is an error reported inside the stream (an error event or
// response.failed).
type eventFailure struct{ code, message string }

func (e *eventFailure) Error() string { return e.code + ": " + e.message }

// decoder turns Responses stream events into chunks.
type decoder struct {
	model   string
	done    bool
	calls   map[int64]bool // output indexes of function calls, true once arguments arrived
	refused bool
}

func (d *decoder) event(ev responses.ResponseStreamEventUnion) ([]llm.Chunk, error) {
	if d.calls == nil {
		d.calls = map[int64]bool{}
	}
	switch ev.Type {
	case "response.output_text.delta":
		if ev.Delta != "" {
			return []llm.Chunk{{Kind: llm.ChunkText, Text: ev.Delta}}, nil
		}
	case "response.refusal.delta":
		d.refused = true
		if ev.Delta != "" {
			return []llm.Chunk{{Kind: llm.ChunkText, Text: ev.Delta}}, nil
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if ev.Delta != "" {
			return []llm.Chunk{{Kind: llm.ChunkReasoning, Text: ev.Delta}}, nil
		}
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			d.calls[ev.OutputIndex] = false
			return []llm.Chunk{{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{
				Index: int(ev.OutputIndex), ID: ev.Item.CallID, Name: ev.Item.Name}}}, nil
		}
	case "response.function_call_arguments.delta":
		if ev.Delta != "" {
			d.calls[ev.OutputIndex] = true
			return []llm.Chunk{{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: int(ev.OutputIndex), Arguments: ev.Delta}}}, nil
		}
	case "response.output_item.done":
		it := ev.Item
		switch it.Type {
		case "reasoning":
			var sum []string
			for _, s := range it.Summary {
				sum = append(sum, s.Text)
			}
			return []llm.Chunk{{Kind: llm.ChunkBlock, Block: llm.Block{Provider: Name, Model: d.model, Type: "reasoning",
				ID: it.ID, Text: strings.Join(sum, "\n\n"), Data: it.EncryptedContent}}}, nil
		case "function_call":
			got, seen := d.calls[ev.OutputIndex]
			var cs []llm.Chunk
			if !seen { // no output_item.added: the whole call comes here
				cs = append(cs, llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: int(ev.OutputIndex), ID: it.CallID, Name: it.Name}})
				d.calls[ev.OutputIndex] = false
			}
			if !got {
				args := it.Arguments.OfString
				if args == "" {
					args = "{}"
				}
				cs = append(cs, llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: int(ev.OutputIndex), Arguments: args}})
				d.calls[ev.OutputIndex] = true
			}
			return cs, nil
		}
	case "response.completed", "response.incomplete":
		d.done = true
		r := ev.Response
		u := r.Usage
		cached := int(u.InputTokensDetails.CachedTokens)
		usage := llm.Usage{InputTokens: max(int(u.InputTokens)-cached, 0), CacheReadTokens: cached,
			OutputTokens: int(u.OutputTokens), ReasoningTokens: int(u.OutputTokensDetails.ReasoningTokens)}
		f := llm.FinishStop
		switch {
		case ev.Type == "response.incomplete" && r.IncompleteDetails.Reason == "content_filter":
			f = llm.FinishRefusal
		case ev.Type == "response.incomplete":
			f = llm.FinishMaxTokens
		case d.refused:
			f = llm.FinishRefusal
		case len(d.calls) > 0:
			f = llm.FinishToolCalls
		}
		return []llm.Chunk{{Kind: llm.ChunkUsage, Usage: usage}, {Kind: llm.ChunkFinish, Finish: f}}, nil
	case "response.failed":
		return nil, &eventFailure{code: string(ev.Response.Error.Code), message: ev.Response.Error.Message}
	case "error":
		return nil, &eventFailure{code: ev.Code, message: ev.Message}
	}
	return nil, nil
}
