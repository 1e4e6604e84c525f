// Package subagent runs child agent sessions on behalf of a parent's tool
// call: the host side of the subagent tool (HostServices.SpawnSubagent).
//
// # Contract
//
// [Runner.Run] creates a child session with its own log, whose header names
// the parent (parentSession) and whose cwd is the parent's, and runs one
// turn of the loop on the prompt with the same model and the parent's
// tools (Runner.Tools: each step's set comes from them, for the child's
// session — the engine's include the MCP servers the child shares with its
// root) — minus subagent, filtered out of every step, once the child sits
// at the depth limit. It returns
// the child's final answer text, or an [*Error] saying why there is none:
// cancelled, failed, or which budget was exceeded.
//
// # Budgets
//
// Each child has a step budget (the loop's MaxSteps), a wall-time budget
// (a deadline on its context) and, when the provider reports usage, a token
// budget (checked after every model response; the next request fails).
// Going over ends the child's turn; the error names the budget.
//
// # Concurrency and cancellation
//
// At most MaxConcurrent children run at once per root session and depth
// level; more wait their turn (or until their context ends). The slots are
// per level, not one pool per root, because a child that delegates holds its
// slot while it waits for its own children: with one pool, children filling
// it would wait forever for grandchildren that cannot start. Per level, the
// deepest level never waits on anyone, so every level above it ends. At
// depth limit d at most d×MaxConcurrent children of one root run at once.
// Cancelling the context of Run —
// the parent's tool call — cancels the child's turn, which ends cancelled
// in its log.
//
// # Visibility
//
// While the child runs, Run reports its progress as short lines: each tool
// call, each result's first line, each answer's first line. Nothing of this
// is kept outside the child's log.
package subagent
