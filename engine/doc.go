// Package engine is the harness runtime as a library: the composition of
// the session store, the agent loop, the permission policy, subagents and
// the plugin toolbox that every front end runs. The terminal commands
// (cmd/harness) and the editor bridge (harness acp) are both "flags and
// environment → Config → New → these operations"; a program embedding
// harness (a CI runner, a web UI) does the same with this package alone.
//
// The name: "the host" is the harness process (docs/architecture.md), and
// host/* its packages, which this one composes; the composition is what
// runs turns, an engine. It sits above host/* and pluginapi and below
// the front ends: it imports neither acpbridge nor cmd (see arch_test.go).
//
// # Contract
//
// New is the one constructor; a Runtime is never built as a literal or
// patched after New (everything a front end decides goes into Config).
// StartTools starts the plugins (it may run while the front end starts; a
// Runtime without tools runs turns with no tools). Sessions are created or
// opened through the Runtime so that the plugins' host services
// (ReadState, RequestPermission, SpawnSubagent, ReadTextFile and
// WriteTextFile, implemented by *Runtime) can answer for them; a turn
// whose live sink implements EditorFiles (an ACP editor that offered its
// file system) has the plugins' text files read and written through it,
// else on disk (opened beneath the session's cwd or "/", following no
// symlink: see textfiles.go); CloseSession forgets one, stops its MCP servers and tells
// the plugins. ConnectMCP starts a session's MCP servers: the user's
// mcp.json (Config.MCPUserFile), the project's .mcp.json when
// Config.MCPProject trusts it, and the front end's (the editor's
// mcpServers); a stdio server whose entry has "sandbox" runs confined
// (MCPProfile, through the plugins' keeper; not started where it cannot
// be); MCPServers lists what those files configure, each server
// started to list its tools and stopped. Run runs one turn with the caller's live sink and asker (the
// session's tools are the plugins' and, after ConnectMCP, its MCP servers'
// as mcp__<server>__<tool>, which need permission but for those their
// server annotates readOnlyHint: reads, which the mode lets through, rules
// still applying; their calls are titled "server: tool"; a subagent child
// uses its root session's servers): the Runtime's policy
// decides, the asker answers what the policy asks, and the turn's approver
// also answers its subagents' and plugins' questions while it runs. Each
// session has a permission mode: CreateSession logs the configured one
// (Config.Policy.Mode) as the session's first event, SessionMode reads it
// from the log, SetSessionMode switches and logs it — also while a turn
// runs, whose approver reads the mode at every decision. Close
// waits for background work and stops the plugins. Config.Sandbox is the
// sandbox every bash command runs under (package sandbox; zero:
// workspace-write, network off, no added folder, 1,024 processes); a
// session may add folders of its own (CreateSessionWithDirs,
// SetSessionDirs: ACP's additionalDirectories, checked like --add-dir by
// CheckAddDir; a child session inherits its parent's), and
// SessionSandbox is a session's. The host is the authority: for each
// call of the bash plugin's execute tools the loop records the call's
// sandbox on its tool/call (callSandbox: mode, network, the writable
// roots computed for the session's cwd and added folders, deny-read
// paths, pids limit) and sends the same value with the call
// (pluginapi.CallRequest.Sandbox), from which the plugin builds the
// command's policy. StartTools also hands mode and network to every plugin
// as HARNESS_SANDBOX and HARNESS_SANDBOX_NETWORK (toolbox.Config.Env,
// after the allow-listed variables, so --plugin-env cannot override it),
// the plugin's fallback for a call that carries none. CreateSession logs
// the session's sandbox (sandbox/policy, by host, with addDirs, denyRead,
// pidsLimit) and Run and SetSessionDirs log it again when it differs from
// the log's last one. A bash call with sandbox "off" records and sends
// sandbox off, and the approver gets the call's sandbox: such a call is
// marked Sandboxed for the permission checker (the auto mode runs it
// unasked) or, asking for sandbox "off", Escalate with its justification.
// The auto mode needs the sandbox to hold it: AutoRefusal says why not
// (the setting off; the kernel, probed once, not enforcing the writes,
// the network, the protected paths or the hidden credential stores);
// SetSessionMode refuses auto then (ErrAutoUnavailable), and a session
// already in auto is decided as in ask. A Runtime writes
// nothing to stdout; it logs to Config.Logger. New refuses a state folder
// another user could write (host/ownership); CreateSession and StartTools
// create a missing one 0700 whatever the umask.
//
// What a front end needs to fill Config the way harness does is here too:
// OpenModel (the providers: deepseek, openai, openai-responses, anthropic,
// script) and Config.OpenModels (the default provider, the models of a
// ModelChoice, the other providers' opened on first use), ListRemoteModels
// (an OpenAI-compatible server's GET /models), LoadPolicy (a mode and the
// rules file), NewLogger, DefaultStateDir, DefaultPermissionsFile,
// DefaultPluginIdle, PluginDirs, Version and SDKVersion.
// OpenOrCreateSession opens a session by id, else creates one.
//
// # Models per session
//
// Config.Models are the models a session may use, the default first. A
// session's model and reasoning effort are derived from its log (the last
// config/option switches; SetOption validates and logs one). The log also
// names the model that serves it, By host: CreateSession logs the default,
// and a turn that starts on another model than the log's last logs it, so
// SummaryUsage prices a listed session by the models it ran on. Every
// request of a turn is sent with the session's choice as of that request,
// to the provider serving that model (Config.OpenProvider opens another
// provider's on first use). Usage reads a session's token use, its
// context now against the model's window, and its cost at the prices of
// the model each step ran on (after a context/compact, its size).
//
// # Slash commands and images
//
// Prompt is what a front end calls with what the user typed: a prompt
// whose first block starts with a command of Commands runs it — /compact
// is Compact (a turn with a context/compact, never user text for the
// model), /init a turn on InitPrompt — and any other prompt, an unknown
// "/word" included, is Run as is. Run stores a prompt's images
// (event.ContentImage with Data) as blobs of the session first
// (session.PutBlob: the log names the hash), or refuses them with
// ErrImagesUnsupported, nothing logged, when the session's model has no
// image input (llm.ModelInfo.Images); such a model's requests carry no
// image parts from the history either.
package engine
