// Package script is a model provider that plays a script: one scripted
// answer per request, in order. Tests and `harness demo` use it to drive the
// real agent loop without a network or a key.
//
// # Format
//
// A script is a JSONL file: one answer per line. Blank lines and lines whose
// first non-blank characters are // or # are comments. Every other line is
// one JSON object with these fields, all optional:
//
//	{
//	  "reasoning": "…",              // streamed first, as reasoning deltas
//	  "text": "…",                   // streamed next, as text deltas
//	  "toolCalls": [{"id": "c1", "name": "todo_write", "args": {…}}],
//	  "finish": "stop",              // stop | tool_calls | max_tokens | refusal
//	  "usage": {"input": 10, "output": 5, "cacheRead": 0, "reasoning": 0},
//	  "error": "provider failure",   // stream the deltas, then fail with this message
//	  "hang": true,                  // stream the deltas, then block until the request is cancelled
//	  "delayMs": 20,                 // sleep between chunks (cut short by cancellation)
//	  "expect": {"lastRole": "tool", "lastContains": "Updated", "toolsInclude": ["todo_write"],
//	             "model": "deepseek-chat", "effort": "high",
//	             "contains": ["text some message holds"], "maxTokens": 8192, "images": 1},
//	  "when": {"lastContains": "<transcript>"}  // answer the first request that matches, out of order
//	}
//
// A tool call's arguments are "args", any JSON value (sent compacted), or
// "arguments", a raw string sent as is — use it for invalid JSON. Neither
// means "{}". A call without "id" gets "call_<line>_<n>". The finish reason
// defaults to tool_calls when there are tool calls, else stop. An unknown
// field, or a line that is not one JSON object, makes [Load] fail naming the
// line.
//
// # Streaming
//
// Each request consumes the next line. Reasoning and text are cut into word
// chunks that keep their whitespace, so the deltas concatenate exactly to
// the scripted strings. Each tool call follows as a first delta (ID, name,
// the start of the arguments) and one or more further argument deltas. Then
// come usage (when given) and finish. A line with "error" or "hang" streams
// the same deltas but ends with the error, or with ctx.Err() once the request
// is cancelled, instead of usage and finish. Every stream checks its context
// before each chunk and ends with ctx.Err() when it is done.
//
// # Failing loudly
//
// A script answers exactly the requests it was written for. A request beyond
// its end fails with "script: no response left for request N (the script has
// M)"; a line whose "expect" does not match the request fails with
// "script: line L expected …, got …". lastRole and lastContains test the last
// message of the request; toolsInclude lists tool names the request must
// offer; model and effort are the model name and reasoning effort the
// request must carry; contains lists texts that some message of the
// request must hold (in its text or a tool call's arguments);
// maxTokens bounds the request's size as llm.EstimateRequest counts it;
// images is how many images the request's messages carry in all (a
// prompt's, a tool result's; 0: none), so a test can tell an image part
// was sent to a model that takes images and none to one that does not.
// systemContains lists texts the request's system prompt must hold.
//
// # Answers out of order
//
// A line with "when" (the same fields as "expect") is not played in order:
// it answers the first request that matches it, once, before the in-order
// lines are considered; one never matched is simply left over (Remaining
// counts in-order lines only). Use it for requests a test cannot place in
// advance, such as a compaction's summary request.
//
// # Compaction and overflow
//
// A compaction's summary request is an ordinary request: script it as a
// line with the summary as "text" (its last message holds the transcript,
// so "expect": {"lastContains": "<transcript>"} pins it, and
// "when": {"lastContains": "<transcript>"} answers it whenever it comes). A provider's
// overflow error is a line with "error" in the provider's wording, e.g.
// "This model's maximum context length is 8192 tokens. However, you
// requested 9000 tokens."; the loop recognizes it (llm.ContextOverflow).
package script
