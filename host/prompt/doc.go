// Package prompt builds the system prompt of a session: the default text (who
// the agent is and how to use its tools, including the todo rules of the
// design seed), the environment (cwd, OS, date, tools), and the project's
// AGENTS.md from the session's cwd when present.
//
// Build reads AGENTS.md from disk; everything else is pure. An AGENTS.md
// larger than [MaxProjectBytes] is cut, and the cut is said in the prompt
// and returned to the caller so it can be reported — never silent.
package prompt
