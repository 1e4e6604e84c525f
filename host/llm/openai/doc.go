// Package openai streams chat answers from any endpoint that speaks the
// OpenAI Chat Completions protocol: OpenAI itself, DeepSeek, and local
// servers such as ollama, llama.cpp and vLLM. [DeepSeek] returns the preset
// for DeepSeek's API.
//
// # Job and contract
//
// [Provider.Stream] turns an [llm.Request] into one POST to
// BaseURL + "/chat/completions" with "stream": true and
// "stream_options": {"include_usage": true}, decodes the server-sent events
// and yields [llm.Chunk]s following the stream contract of package llm: text,
// reasoning and tool-call deltas in order, then at most one Usage chunk, then
// one Finish chunk. The finish reason and usage are held until the stream
// ends ("data: [DONE]" or EOF), because OpenAI sends usage in a trailing
// chunk with empty choices after the chunk that carries the finish reason.
//
// Images are image_url parts with data URLs: a user message's after its
// text. A tool message holds text only, so the images of a run of tool
// results follow the run in one user message, each result's announced by
// its call id ("The images of the result of tool call c1:").
//
// Failures are [*llm.Error]s with a one-line message meant for the user:
// 401/403 are ErrAuth (naming Config.KeyHint), and so are 402 and a 429 for
// an exhausted quota; 404 is ErrNotFound, naming either the model or the
// endpoint (as is a 400 whose message says the model does not exist, as
// DeepSeek answers); 400/413/422 and other 4xx are ErrBadRequest with the
// server's own message; 429 is ErrRateLimit; 408, 409 and 5xx are
// ErrServer; a failed, dropped or idle connection (Config.IdleTimeout) is
// ErrTransport; an undecodable stream is ErrMalformed. An {"error": {...}}
// object in the stream is classified by its code or type. The API key never
// appears in an error or a log line, nor does a password or query in the
// base URL. A cancelled context ends the stream with ctx.Err() itself,
// unwrapped.
//
// Rate limits, server errors and transport failures are retried up to
// Config.MaxRetries times with exponential backoff and jitter, honouring
// Retry-After up to Config.RetryMax, but only while nothing has been yielded:
// once the consumer has seen a chunk, a failure ends the stream and the
// agent loop decides what to do. Breaking out of the range loop closes the
// response body.
//
// # Why not github.com/openai/openai-go
//
// We decode the stream ourselves (sse.go, stream.go; fuzzed by FuzzSSE)
// instead of using the official SDK because:
//
//   - DeepSeek's reasoning_content is reachable in the SDK only through
//     untyped extra-field escape hatches, both when reading deltas (extra
//     JSON fields) and when sending history back (SetExtraFields on the
//     assistant message params), and DeepSeek refuses a thinking-mode
//     history whose tool-calling assistant messages lack it;
//   - the SDK retries on its own, while we need one bounded retry policy
//     that stops as soon as anything reached the consumer;
//   - compatible servers deviate in small ways that we must tolerate
//     explicitly, and the decoder that does so is small.
//
// # Compatibility notes
//
//   - DeepSeek: reasoning arrives as delta.reasoning_content and is sent
//     back as reasoning_content on every assistant message that has
//     reasoning (required on messages with tool calls in thinking mode).
//     Cache hits are usage.prompt_cache_hit_tokens; usage comes in the chunk
//     that carries the finish reason. ": keep-alive" comments while the
//     request is queued are ignored. The finish reason
//     insufficient_system_resource is reported as an ErrServer error, since
//     the answer was cut short.
//   - OpenAI: cache hits are usage.prompt_tokens_details.cached_tokens;
//     usage comes in a last chunk with empty choices; delta.refusal text is
//     yielded as text and the finish becomes refusal.
//   - ollama: tool-call deltas may lack an index (calls are then told apart
//     by id, else by position), a whole call may come in one delta, and the
//     finish reason may be "stop" although tool calls were made (reported as
//     tool_calls). Reasoning may be named delta.reasoning.
//   - llama.cpp and vLLM: reasoning may be named delta.reasoning; usage may be
//     absent; arguments may come as a JSON object instead of a string; an
//     error may arrive mid-stream as {"error": {...}} with a numeric code.
//   - A server that ignores "stream": true and answers application/json gets
//     its whole completion decoded into the same chunks.
//   - A stream that ends after a finish reason without "[DONE]" is accepted;
//     one that ends with no finish reason is an ErrTransport error; "[DONE]"
//     without a finish reason finishes with tool_calls or stop.
//
// Token counts: InputTokens is prompt_tokens minus cached tokens,
// CacheReadTokens the cached ones, OutputTokens is completion_tokens (which
// includes ReasoningTokens, as both OpenAI and DeepSeek bill them).
package openai
