// Package permission decides whether a tool call that needs permission may
// run: allow, deny, or ask the user — the asker is the editor (ACP
// session/request_permission) or the terminal.
//
// # Policy
//
// A [Policy] has a mode and rules. Rules are read from a JSON file:
//
//	{"rules": [
//	  {"tool": "bash", "prefix": "git status", "action": "allow"},
//	  {"tool": "bash", "prefix": "rm ", "action": "deny"},
//	  {"tool": "bash_kill", "action": "ask"}
//	]}
//
// A rule matches a call to its tool; with a prefix, only when the call's
// "command" argument, trimmed, starts with it. The first matching rule, in
// file order, decides. With no matching rule the mode decides: allow-all
// allows, ask asks.
//
// # Checker
//
// [Checker.Check] applies the policy and, when the answer is ask, asks its
// [Asker]. With no asker (no terminal, no editor), ask becomes a rejection
// whose reason tells the user how to allow the call. The answer says who
// decided (rule, mode or user) so the caller can log it.
package permission
