// Package termview is the terminal front end of a turn, as acpbridge is the
// editor's: View renders one turn on a terminal (the answer as it streams,
// tool calls and results compactly, the todo list as a checklist) from the
// deltas it receives as the turn's agent.Live and the events it follows in
// the session log, each event exactly once and in log order; Asker asks
// the user about a tool call on the terminal, and puts an MCP server's
// question to the user field by field (engine.Elicitor). Terminal runs a turn (or a
// compaction) of an engine.Runtime with both and maps its outcome to the
// exit status and one-line reason harness run documents (0 completed, 1
// failed, 3 stopped early, 130 cancelled); Header prints the line a turn
// starts with (session, permission mode, sandbox — "sandbox off" stated
// plainly —, the fixed part of the window: system prompt and tools, and
// one warning line when that passes half of it), Finish the turn's usage
// line; Plugins and ToolSizes are `harness plugins`' tables (each tool's
// schema in tokens, the largest first). A tool call shows as "→" and
// its title — the plugin's preview title, or the title the tool declared
// (bash: its command; subagent: "Subagent: " and the task) — as the
// editor shows it, or, for a tool with neither, its name and arguments;
// the permission question always shows the whole call. It writes only to the writers it is given; cmd/harness parses the
// flags and builds the runtime.
//
// Every string it shows that harness did not write itself — the model's
// text, tools' output and titles, diffs, what plugins, MCP servers, session
// logs and the config file say — goes through host/termsafe (Line for a
// line or a table cell, a Stream for what arrives in pieces): its own
// styles are the only escapes termview writes.
package termview
