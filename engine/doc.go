// Package engine is the harness runtime as a library: the composition of
// the session store, the agent loop, the permission policy, subagents and
// the plugin toolbox that every front end runs. The terminal commands
// (cmd/harness) and the editor bridge (harness acp) are both "flags and
// environment → Config → New → these operations"; a program embedding
// harness (a CI runner, a web UI) does the same with this package alone.
//
// The name: "host" already means the folder of libraries this package
// composes (host/*), so the composition is not called host again; it is
// what runs turns, an engine. It sits above host/* and pluginapi and below
// the front ends: it imports neither acpbridge nor cmd (see arch_test.go).
//
// # Contract
//
// New is the one constructor; a Runtime is never built as a literal or
// patched after New (everything a front end decides goes into Config).
// StartTools starts the plugins (it may run while the front end starts; a
// Runtime without tools runs turns with no tools). Sessions are created or
// opened through the Runtime so that the plugins' host services
// (ReadState, RequestPermission, SpawnSubagent, implemented by *Runtime)
// can answer for them; CloseSession forgets one and tells the plugins. Run
// runs one turn with the caller's live sink and asker: the Runtime's policy
// decides, the asker answers what the policy asks, and the turn's approver
// also answers its subagents' and plugins' questions while it runs. Close
// waits for background work and stops the plugins. A Runtime writes
// nothing to stdout; it logs to Config.Logger.
//
// What a front end needs to fill Config the way harness does is here too:
// OpenModel (the providers: deepseek, openai, openai-responses, anthropic,
// script), DefaultStateDir,
// DefaultPermissionsFile, PluginDirs and Version.
package engine
