// Package acpagent serves an [engine.Runtime] as an ACP agent: [Agent]
// implements [acpbridge.Agent] and the bridge's optional interfaces
// (MCP servers from session/new; DirsAgent: additionalDirectories as the
// session's added sandbox folders, checked like --add-dir; ForkAgent:
// session/fork as engine.Runtime.ForkSession as of the last closed
// turn), and its
// sessions implement acpbridge.Session with the optional ModeSession
// (permission modes as ACP session modes), DirsSession (session/load's
// folders) and Configurable (model and reasoning effort as config
// options, and the read-only "sandbox" option showing the session's
// sandbox; usage) and Noticer (its MCP servers' failures, from
// engine.Runtime.WatchMCP). It holds no state of its own: everything it
// answers comes from the runtime and so from the session logs.
//
// Contract: build it with [New] on a Runtime, call [Agent.StartTools]
// (plugins start while the editor initializes; sessions wait for them),
// hand it to acpbridge.Serve with [Modes] as Options.Modes, then call the
// stop StartTools returned and close the Runtime. A failed session/new
// leaves no session file: everything that can fail for the cwd (the
// directory, the plugins, the prompt and its AGENTS.md) is done before the
// session is created. [Agent.Refuse] makes every session/new, load,
// resume and fork fail (a host without an API key, which still answers initialize
// and session/list). [Unavailable] is the agent of a harness whose
// settings are broken and which has no runtime: it refuses every session
// request, list included, with the reason; [BridgeOptions] are the bridge's
// options for either.
package acpagent
