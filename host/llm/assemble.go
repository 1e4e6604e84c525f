package llm

import (
	"fmt"
	"sort"
	"strings"
)

// Assembler folds the chunks of one stream into a [Response]. The zero value
// is ready to use.
type Assembler struct {
	text, reasoning strings.Builder
	calls           map[int]*toolCallBuilder
	blocks          []Block
	usage           *Usage
	finish          Finish
}

type toolCallBuilder struct {
	order int
	id    string
	name  string
	args  strings.Builder
}

// Add folds one chunk in.
func (a *Assembler) Add(c Chunk) {
	switch c.Kind {
	case ChunkText:
		a.text.WriteString(c.Text)
	case ChunkReasoning:
		a.reasoning.WriteString(c.Text)
	case ChunkToolCall:
		if a.calls == nil {
			a.calls = make(map[int]*toolCallBuilder)
		}
		b, ok := a.calls[c.ToolCall.Index]
		if !ok {
			b = &toolCallBuilder{order: len(a.calls)}
			a.calls[c.ToolCall.Index] = b
		}
		if b.id == "" {
			b.id = c.ToolCall.ID
		}
		if b.name == "" {
			b.name = c.ToolCall.Name
		}
		b.args.WriteString(c.ToolCall.Arguments)
	case ChunkUsage:
		u := c.Usage
		a.usage = &u
	case ChunkFinish:
		a.finish = c.Finish
	case ChunkBlock:
		a.blocks = append(a.blocks, c.Block)
	}
}

// Response returns what was assembled so far. Tool calls keep the order in
// which their indexes first appeared; a call whose stream carried no ID gets
// "call_<index>". A missing finish reason is tool_calls when there are tool
// calls, else stop.
func (a *Assembler) Response() Response {
	r := Response{Text: a.text.String(), Reasoning: a.reasoning.String(), Blocks: a.blocks, Usage: a.usage, Finish: a.finish}
	idx := make([]int, 0, len(a.calls))
	for i := range a.calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(i, j int) bool { return a.calls[idx[i]].order < a.calls[idx[j]].order })
	for _, i := range idx {
		b := a.calls[i]
		id := b.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: id, Name: b.name, Arguments: b.args.String()})
	}
	if r.Finish == "" {
		r.Finish = FinishStop
		if len(r.ToolCalls) > 0 {
			r.Finish = FinishToolCalls
		}
	}
	return r
}
