package llm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAssembler(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		chunks []Chunk
		want   Response
	}{
		"text and reasoning": {
			chunks: []Chunk{
				{Kind: ChunkReasoning, Text: "let me "}, {Kind: ChunkReasoning, Text: "think"},
				{Kind: ChunkText, Text: "Hel"}, {Kind: ChunkText, Text: "lo"},
				{Kind: ChunkUsage, Usage: Usage{InputTokens: 3, OutputTokens: 2}},
				{Kind: ChunkFinish, Finish: FinishStop},
			},
			want: Response{Text: "Hello", Reasoning: "let me think", Usage: &Usage{InputTokens: 3, OutputTokens: 2}, Finish: FinishStop},
		},
		"interleaved tool calls keep first-seen order": {
			chunks: []Chunk{
				{Kind: ChunkToolCall, ToolCall: ToolCallDelta{Index: 1, ID: "b", Name: "bash", Arguments: `{"com`}},
				{Kind: ChunkToolCall, ToolCall: ToolCallDelta{Index: 0, ID: "a", Name: "todo_write", Arguments: `{}`}},
				{Kind: ChunkToolCall, ToolCall: ToolCallDelta{Index: 1, Arguments: `mand":"ls"}`}},
			},
			want: Response{ToolCalls: []ToolCall{
				{ID: "b", Name: "bash", Arguments: `{"command":"ls"}`},
				{ID: "a", Name: "todo_write", Arguments: `{}`},
			}, Finish: FinishToolCalls},
		},
		"missing id gets call_index": {
			chunks: []Chunk{{Kind: ChunkToolCall, ToolCall: ToolCallDelta{Index: 3, Name: "x"}}},
			want:   Response{ToolCalls: []ToolCall{{ID: "call_3", Name: "x"}}, Finish: FinishToolCalls},
		},
		"empty stream": {want: Response{Finish: FinishStop}},
		"max tokens kept": {
			chunks: []Chunk{{Kind: ChunkText, Text: "cut"}, {Kind: ChunkFinish, Finish: FinishMaxTokens}},
			want:   Response{Text: "cut", Finish: FinishMaxTokens},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var a Assembler
			for _, c := range tc.chunks {
				a.Add(c)
			}
			if diff := cmp.Diff(tc.want, a.Response()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorRetryable(t *testing.T) {
	t.Parallel()
	for kind, want := range map[ErrorKind]bool{
		ErrAuth: false, ErrNotFound: false, ErrBadRequest: false, ErrMalformed: false,
		ErrRateLimit: true, ErrServer: true, ErrTransport: true,
	} {
		if got := (&Error{Kind: kind}).Retryable(); got != want {
			t.Errorf("%s: Retryable() = %v, want %v", kind, got, want)
		}
	}
	e := &Error{Kind: ErrAuth, Provider: "deepseek", Status: 401, Message: "the API key was refused"}
	if got, want := e.Error(), "deepseek: the API key was refused (HTTP 401)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestAssemblerKeepsBlocksInOrder(t *testing.T) {
	var a Assembler
	for _, c := range []Chunk{
		{Kind: ChunkReasoning, Text: "think"},
		{Kind: ChunkBlock, Block: Block{Provider: "anthropic", Type: "thinking", Text: "think", Signature: "sig"}},
		{Kind: ChunkBlock, Block: Block{Provider: "anthropic", Type: "redacted_thinking", Data: "opaque"}},
		{Kind: ChunkText, Text: "done"},
		{Kind: ChunkFinish, Finish: FinishStop},
	} {
		a.Add(c)
	}
	r := a.Response()
	if len(r.Blocks) != 2 || r.Blocks[0].Signature != "sig" || r.Blocks[1].Data != "opaque" || r.Reasoning != "think" || r.Text != "done" {
		t.Errorf("response = %+v", r)
	}
}
