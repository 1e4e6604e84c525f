// Package llmproc runs harness's SDK-based model providers (anthropic on
// anthropic-sdk-go, openai-responses on openai-go) in a child process,
// harness-llm, so that the host does not link the SDKs: their package
// initialisation alone (union registration by reflection) touches ~22 MB
// of the binary, which every harness process would otherwise carry. It
// holds both sides: [Serve], the process's main (cmd/harness-llm hands it
// the providers' constructors, so this package imports no SDK), and
// [Proc] with its [Provider], the host side.
//
// # Host side
//
// [Find] locates the binary ($HARNESS_LLM_BIN, else harness-llm next to
// the running executable; a missing one is a one-line error naming where
// it looked and the build command). A [Proc] starts nothing until the
// first [Provider.Stream]; concurrent first calls start one process. The
// process is shared by every Provider made from the Proc, stopped after
// Options.Idle (default [DefaultIdle]) with no stream in flight, and
// started again by the next call after an idle stop or a crash. It is
// started as tool plugins are, by pluginhost.ProcessRunner: its own
// process group, stdin a pipe only the host holds (it exits on EOF), on
// Linux Pdeathsig SIGKILL from a thread kept for its lifetime, so it dies
// with the host even on SIGKILL; and, with Options.Supervisor (the engine
// passes host/keeper's), under a supervisor that kills whatever it left
// when it ends, and all of it when the host dies. PID is harness-llm's.
// Its stderr (JSON log lines) is relayed to the host's logger, never to
// stdout. Its environment is what tool plugins get (pluginhost's
// PluginEnv) plus the proxy variables, with no *_API_KEY, HARNESS_* or
// secret-looking variable: the API key travels in each request, and the
// SDKs find no environment defaults (OPENAI_ORG_ID, OPENAI_BASE_URL, …)
// that would override the request's settings.
//
// # Stream contract
//
// Provider.Stream follows package llm's stream contract: the chunks are
// those the provider in the process yielded, in order and unchanged
// (thinking blocks and signatures byte for byte). A provider failure
// arrives as an [*llm.Error] with the same Kind, Provider, Status, Message
// and RetryAfter (Err, the underlying cause, does not cross); compaction
// relies on ErrContextLength and the caller's back-off on RetryAfter. The
// provider in the process has already retried what it retries; Stream
// never retries. A process that dies mid-stream ends the stream with an
// ErrTransport error naming how it ended and its last stderr lines; the
// next call starts a new one. A cancelled context ends the stream with
// ctx.Err().
//
// # Wire
//
// go-plugin's handshake and gRPC connection (a private Unix socket), with
// one hand-written grpc.ServiceDesc: harness.llmproc.v1.LLM/Stream, server
// streaming. The request and each stream message are a
// wrapperspb.BytesValue holding JSON — a request is {config: [Config],
// request: llm.Request}, a message one llm.Chunk or one final error
// {kind, provider, status, message, retryAfter} — so the default proto
// codec carries them next to go-plugin's own services, with no protoc
// step and no generated code for a message set that is llm's Go types.
// Both ends are private to one build of harness (the host and the process
// are installed together), so the JSON needs no versioning beyond the
// handshake's protocol version. The host decodes every message
// defensively (a fuzz target checks it): an unknown chunk kind, error
// kind or out-of-range status or retry-after is ErrMalformed.
package llmproc
