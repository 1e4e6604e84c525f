// Package termview is the terminal front end of a turn, as acpbridge is the
// editor's: View renders one turn on a terminal (the answer as it streams,
// tool calls and results compactly, the todo list as a checklist) from the
// deltas it receives as the turn's agent.Live and the events it follows in
// the session log, each event exactly once and in log order; Asker asks
// the user about a tool call on the terminal. It writes only to the
// io.Writer it is given and imports no runtime: cmd/harness wires it to
// package engine.
package termview
