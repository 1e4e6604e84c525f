// Package responses streams answers from OpenAI's Responses API
// (POST /v1/responses with "stream": true) through the official SDK,
// github.com/openai/openai-go/v3. harness names it openai-responses.
//
// # Which OpenAI provider to pick
//
// Use this package (--provider openai-responses) for OpenAI's own API and
// its current models: it is the only API for some of them, and it carries
// the model's reasoning across the steps of a turn. Use package openai
// (Chat Completions; --provider openai or deepseek) for DeepSeek, for local
// servers (ollama, llama.cpp, vLLM) and for any other OpenAI-compatible
// endpoint, since few of them speak the Responses API.
//
// # Job and contract
//
// [Provider.Stream] turns an [llm.Request] into one Responses request with
// "store": false and "include": ["reasoning.encrypted_content"], so that
// nothing is kept on OpenAI's side and every reasoning item comes back with
// its encrypted content. It yields [llm.Chunk]s following the stream
// contract of package llm: output text and refusal deltas as text,
// reasoning summary deltas as reasoning, function calls as tool-call deltas
// (indexed by output position, arguments streamed), a Block chunk for each
// reasoning item (Provider "openai-responses", Type "reasoning", its id,
// summary text and encrypted content as Data), then one Usage chunk and one
// Finish chunk.
//
// Sending history: the system prompt is the instructions; an assistant
// message is sent as its reasoning items (those with Provider
// "openai-responses", unchanged, encrypted content included), its text as
// an assistant message, and its function_call items; a tool message is a
// function_call_output, whose output is a list (input_text, then each
// image as input_image with a data URL) when it carries images. A user
// message's images follow its text as input_image parts. Reasoning from
// other providers is not sent.
//
// Usage: InputTokens is input_tokens minus the cached tokens,
// CacheReadTokens input_tokens_details.cached_tokens, OutputTokens
// output_tokens (reasoning included), ReasoningTokens
// output_tokens_details.reasoning_tokens.
//
// Finish: completed is tool_calls when the answer has function calls, else
// stop (refusal when it refused); incomplete for max_output_tokens is
// max_tokens, for content_filter refusal.
//
// # Errors and retries
//
// As in package openai: 401/403 are ErrAuth naming Config.KeyHint, 429 with
// insufficient_quota is ErrAuth, 404 is ErrNotFound, a context_length
// error is ErrContextLength, other 4xx ErrBadRequest with the server's
// message, 429 ErrRateLimit, 5xx ErrServer, connection failures
// ErrTransport, undecodable events ErrMalformed; response.failed and error
// events are classified by their code. The SDK's retries are off; rate
// limits, server errors and transport failures are retried with backoff
// (honouring retry-after-ms and Retry-After) while nothing has been
// yielded. A request idle for Config.IdleTimeout (default 5 minutes) ends
// as ErrTransport. The API key never appears in an error or a log line.
//
// Only the SDK's Responses service is used (responses.NewResponseService),
// never its root package: the root links every OpenAI service into harness
// (a test fails if ./cmd/harness depends on it again) and reads OPENAI_*
// variables. The key and base URL come from [Config]; the SDK reads
// nothing from the environment (OPENAI_ORG_ID, OPENAI_PROJECT_ID,
// OPENAI_CUSTOM_HEADERS and OPENAI_BASE_URL change nothing).
package responses
