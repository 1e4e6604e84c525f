// Package confine decides what sandbox each thing the host runs gets from
// the host's settings: a bash call (Call: the sandbox its tool/call
// records and the plugin enforces, from the Setting of --sandbox,
// --sandbox-network, --add-dir, --deny-read and --pids-limit; Escalates
// for a call asking to leave it), a plugin process (Plugins, the
// toolbox's Confiner: a sandbox.Profile from the capabilities it is
// granted — what a built-in or a binary the user trusted declares, else
// the default, else a refusal naming `harness plugins trust` — and the
// FileGate bounding the host's text files for it), a stdio MCP server
// whose mcp.json entry asks for a sandbox (MCP, MCPProfile), and whether
// the auto permission mode can run here (Kernel.AutoRefusal). Every
// process runs under host/keeper (Supervise); a confined one is confined
// by its keeper before its exec.
//
// It decides and builds; it keeps no session state: the engine hands it
// each session's setting (its added folders included) and logs what it
// decides (Policy, the sandbox/policy event).
package confine
