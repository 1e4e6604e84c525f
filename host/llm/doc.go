// Package llm holds the provider-neutral types of a chat-model exchange:
// messages, tool specs, requests, streamed chunks and typed errors. It does no
// I/O; each provider lives in a subpackage (openai, script) and exposes a
// Stream method of the shape
//
//	Stream(ctx context.Context, req Request) iter.Seq2[Chunk, error]
//
// which host/agent declares on its side as its Model interface.
//
// # Stream contract
//
// A stream yields text, reasoning and tool-call deltas in the order the model
// produced them, then at most one Usage chunk, then exactly one Finish chunk,
// and nothing after it. A failure is yielded as a non-nil error (usually an
// [*Error]) and ends the stream; a cancelled context ends it with ctx.Err().
// Tool-call deltas carry an Index; the first delta of an index carries the
// call's ID and Name, later ones append to its Arguments. A Block chunk
// carries one whole opaque provider block (a thinking block with its
// signature, an encrypted reasoning item) after the reasoning deltas of its
// text, if any; hosts keep it in the log and hand it back in
// [Message].Blocks, and only the provider named in [Block].Provider reads
// it (and only for the [Block].Model that made it), so a session may switch
// providers or models between turns: the other provider sees the readable
// Reasoning and drops the blocks. [Assembler] folds a
// stream into a [Response]. Usage keeps the provider's cached-input count
// apart from the uncached input.
//
// # Models
//
// [ModelInfo] describes a model a user can choose (provider, name, context
// window, [Prices] per million tokens, reasoning effort levels);
// [BuiltinModels] is harness's own table (DeepSeek's published windows and
// prices), to which the config file and the flags add. A request names its
// model and, for a model with levels, its ReasoningEffort.
package llm
