// Package prompt builds the system prompt of a session: the default text (who
// the agent is and how to use its tools, including the todo rules of the
// design seed when todo_write is offered), the environment (cwd, OS, date,
// tools), and the project's AGENTS.md from the session's cwd when present.
//
// Build reads AGENTS.md from disk; everything else is pure. An AGENTS.md
// larger than [MaxProjectBytes] is cut, and the cut is said in the prompt
// and returned to the caller so it can be reported — never silent.
//
// # Tools
//
// The prompt names the tools available. The tool list can change between
// steps of one turn (a hot reload adds or withdraws tools), so the prompt
// is rendered for each request's own list with [Result.ForTools]: the host
// calls it per request, and the prompt names exactly the tools sent with
// it. With no tools it says so, and leaves out the todo rules.
package prompt
