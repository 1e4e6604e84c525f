// Package providers opens model providers by name and knows which models a
// user configured: Open builds a provider (deepseek, openai,
// openai-responses, anthropic, script) from a Provider — name, model,
// endpoint, thinking budget and the environment its API key comes from —
// with errors that name the flag or variable that fixes them (ErrNoAPIKey
// for a missing key); Choice resolves --provider, --model, --models and
// the config file's [[models]] into the models a session may use, with
// their windows, prices and reasoning efforts; OpenModels does both the way
// harness does; Set serves each model from its provider, opening another
// provider's on first use; ListRemote asks an OpenAI-compatible server for
// its models.
//
// The SDK providers (anthropic, openai-responses) are served by the
// harness-llm process through host/llm/llmproc: this package never links
// their SDKs (TestHostLinksNoSDK). An API key is never part of an error.
package providers
