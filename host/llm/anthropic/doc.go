// Package anthropic streams answers from Anthropic's Messages API
// (POST /v1/messages with "stream": true) through the official SDK,
// github.com/anthropics/anthropic-sdk-go/v2.
//
// # Job and contract
//
// [Provider.Stream] turns an [llm.Request] into one Messages request and
// yields [llm.Chunk]s following the stream contract of package llm: text,
// thinking and tool-call deltas in the order the model produced them, a
// Block chunk for every thinking block (its text and signature, after its
// thinking deltas) and every redacted-thinking block (its opaque data),
// then one Usage chunk, then one Finish chunk.
//
// Sending history: an assistant message is sent as its blocks whose
// Provider is "anthropic" and whose Model is the model now requested
// (thinking with the signature it came with, redacted thinking with its
// data, both unchanged and in their order; thinking is bound to the model
// that made it, so a session that switches models drops the earlier
// model's thinking), then
// its text, then its tool_use blocks; a message's reasoning text without
// such a block (from another provider) is not sent, since the API accepts
// only signed thinking. Tool results, and a user message right after them,
// go in one user message with the tool_result blocks first.
//
// Prompt caching: cache_control breakpoints (ephemeral, 5 minutes) go on the
// system prompt, the last tool, the last block of the last message, and the
// last block of the previous request's last message (the user-side message
// before the latest assistant message), so each step reads the whole
// earlier history from the cache and writes only what is new. The usage of
// a step counts input_tokens as InputTokens (excluding the cache),
// cache_read_input_tokens as CacheReadTokens and
// cache_creation_input_tokens as CacheWriteTokens.
//
// Thinking: with Config.ThinkingBudget 0 no thinking setting is sent and
// the model's default applies (adaptive thinking on Claude Sonnet 5 and
// later, none on older models); a negative budget sends {"type":
// "adaptive"}; a positive one {"type": "enabled", "budget_tokens": N}
// (max_tokens is raised above it), which only models before Claude Sonnet 5
// accept. Whatever thinking comes back is kept and returned. Images
// (llm.Message.Images) are base64 image blocks: a user message's after its
// text, a tool result's inside its tool_result block, after its text.
//
// Finish reasons: end_turn, stop_sequence and pause_turn are stop; tool_use
// is tool_calls; max_tokens and model_context_window_exceeded are
// max_tokens; refusal is refusal.
//
// # Errors and retries
//
// Failures are [*llm.Error]s with a one-line message: 401/403 are ErrAuth
// naming Config.KeyHint (never the key); 402 and billing errors are ErrAuth
// saying to check the account; 404 is ErrNotFound naming the model; a 400
// saying the prompt is too long is ErrContextLength; other 4xx are
// ErrBadRequest with the server's message; 429 is ErrRateLimit; 529 and
// overloaded_error are ErrServer ("overloaded"), as are other 5xx; a
// connection failure is ErrTransport; an undecodable event ErrMalformed. An
// error event in the stream is classified by its type. The API key never
// appears in an error or a log line, nor does a password or query in the
// base URL. A cancelled context ends the stream with ctx.Err() itself.
//
// The SDK's own retries are off. Rate limits, overload, server errors and
// transport failures are retried up to Config.MaxRetries times with
// exponential backoff and jitter, honouring retry-after up to
// Config.RetryMax, but only while nothing has been yielded, as the
// openai package does.
//
// A request that receives no bytes for Config.IdleTimeout (default 5
// minutes) ends as an ErrTransport error ("no data from …").
//
// The SDK reads no environment: the key, base URL and headers come from
// [Config] only (engine reads ANTHROPIC_API_KEY and --base-url).
package anthropic
