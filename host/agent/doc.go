// Package agent is the agent loop: it runs one turn of a session at a time,
// sending the session's history to the model, recording the answer, running
// the tool calls the model makes, and repeating until the model answers
// without calling tools. It reaches the model, the log, the tools and the
// editor only through the small interfaces it declares here (Model, SessionLog,
// Tools and Step, Live); package engine wires the real ones. Tools, calls
// and results are host/tool's.
//
// # A turn
//
// [Loop.Run] runs turn n = SessionLog.LastTurn()+1. It appends turn/start and the
// user/message, then runs steps 1, 2, …:
//
//   - The step's tool set is taken once, before step/start (Tools.Step), and
//     kept for the whole step (a plugin reloaded mid-step does not change
//     it); it is closed after step/end.
//   - The request is the system prompt (Loop.SystemFor of the set's tool
//     names when set, else Loop.System), SessionLog.Messages() and the set's
//     tools. Text and reasoning deltas go to Live as they arrive; a tool-call
//     chunk naming a tool of the set warms it (Step.Warm: a plugin starts
//     while the model is still answering); the chunks are folded with
//     llm.Assembler.
//   - assistant/message with the text, reasoning, tool calls, usage and
//     finish reason — skipped only when it has none of text, reasoning, tool
//     calls and usage. On finish max_tokens or refusal the tool calls are
//     stripped (never run) and the turn ends with that reason. A call ID
//     repeated within the answer is made unique (id_2, id_3, …).
//   - The tool calls run (below), then step/end. A step without tool calls
//     ends the turn completed. After MaxSteps steps that all called tools,
//     the turn ends max_steps. Before each step a Loop with a Budget asks
//     it whether the step would pass the budget; if so the turn ends
//     budget, the step not started.
//
// turn/end carries the reason and the summed usage of the steps, and the
// session is synced before Run returns: an [Outcome] is only reported once
// it is durable. Every event sits inside the open turn and every step is
// closed; Run leaves no turn open on any path it controls. The loop keeps no
// state between turns: everything comes from the SessionLog.
//
// # Context and compaction
//
// Before each step the loop estimates the request's input tokens: the usage
// the provider reported for the last answer that carried usage (input,
// cached input and output) plus, for the messages appended since, the
// llm.BytesPerToken estimate (3 bytes a token; see its doc for how far off
// it can be); the estimate of the whole request (system prompt, messages,
// tools) when no reported usage counts the history (none yet, or a
// compaction since). Estimates are scaled by the session's ratio of the
// provider's count to the estimate of the same request (llm.Scale: the
// reported usage over the estimate of the system prompt, the step's tools
// and the messages it counts), derived from the log at each step, so a
// restart keeps it. The window is the limit a provider stated in an
// overflow error — this turn's, else the one the session's last
// context/compact recorded — else Loop.WindowOf, else Loop.ContextWindow
// (0: unknown).
//
// When the estimate passes CompactAt percent of a known window (80 by
// default), the loop compacts before step/start — only when it frees room:
// not when the history older than the last user message is empty or
// weighs less than a summary is allowed (6 % of the window, 256 to 4096
// tokens), and the summary is dropped, nothing logged, when with the todo
// list it takes more than half of what it replaces; the step then goes on,
// unless the request is larger than the whole window, which fails the turn
// with one line. It keeps the most recent messages verbatim within
// KeepTokens (default: what CompactTarget percent of the window, 50 by
// default, leaves besides the system prompt, tools, todo list and the
// summary's room, so that the request after it fills at most that share;
// the last user message and what follows it are kept whenever they fit
// below the threshold, and a user message that is the last is never
// summarized; never starting at a tool result, which must follow its
// call), and asks the model — the same
// Model, the system prompt and one user message holding a transcript of the
// older messages followed by [CompactPrompt], no tools — for a summary. The
// transcript is cut to fit the window (tool results and arguments to 2,000
// bytes each, then the oldest messages left out, saying so). The summary
// streams to a Live that implements [CompactionLive]; then one
// context/compact is appended (event.Compact: the summary, Keep, the reason,
// the token estimates before and after, the window and any provider-stated
// limit), and the session derives the model's history from it. A failed
// automatic compaction is logged and the step goes on; at most three run in
// a turn.
//
// When the provider refuses a request as too long (llm.ContextOverflow: "maximum
// context length is N tokens", "prompt is too long: N tokens > M maximum",
// context_length_exceeded, …) before any text arrived, the step ends, the
// loop compacts once with reason overflow — fitting the limit the error
// stated, which it then believes for the rest of the session (the
// context/compact records it) — and retries in the next step. If
// compacting fails, or the retry overflows again, the turn fails with one
// line saying so (a compaction that would not free room counts as failed
// here). [Loop.Compact] compacts on demand, in a turn of its own
// (turn/start, context/compact with reason command, turn/end): `harness run
// --compact` and the editor's /compact. A compaction is one event, appended
// whole or not at all: a crash while the summary streams leaves no trace
// but the turn, which the next Open closes as interrupted.
//
// # Tool calls
//
// Each call gets a tool/call before it is dispatched, with the tool's Kind
// and what the step's preview (Step.Preview) says the call would do
// (title, locations, diffs): logged before the Approver is asked,
// so the editor shows the diff with the question; the question about an
// MCP server's tool carries the tool's title (ApprovalRequest.ToolTitle,
// "server: title"), its raw name staying in Tool. The tool/result carries
// the Meta of the Result (diffs equal to the preview's are not logged
// again; a diff over 1 MiB is left out) and, in images, its image blocks
// whose bytes its source stored as blobs (tool.Block.Blob): hashes, never
// bytes. Adjacent calls to
// tools marked ConcurrencySafe form a group that runs concurrently, at most
// MaxParallel at a time; any other call runs alone, a barrier between
// groups. Results are recorded strictly in model order — a fast later result
// waits for a slower earlier one — each as the events the tool proposed
// (appended with SessionLog.AppendProposed when its source checked it —
// tool.Checked, as the toolbox does —, else with SessionLog.AppendRaw,
// which checks it) followed by its tool/result. If the
// session rejects a proposed event (or the event claims one of the loop's
// own types), the call's result becomes an error result saying so. A call to
// a tool that is not in the step's list gets the error result
// `Error: unknown tool "x"` without reaching the step's set (or the line
// the set gives, when it implements Unlisted: a deferred tool says how to
// load it). Error results read
// "Error: …" for the model: the prefix is added when a tool left it out.
//
// # Live output
//
// Text and reasoning deltas go to the turn's Live as they stream; they are
// not logged (the assembled assistant/message is). A Live that also
// implements ToolProgress receives each tool call's live output (Call.Progress
// forwards it), which is not logged either: the tool/result is. One that
// implements ToolStart is told when each call starts running, after any
// question about it was answered.
//
// # Routing
//
// Each step takes its tool set once. Once the answer is complete, the loop
// takes each called tool's entry again (Step.Tool, which waits for the
// tool's warm start), so every tool/call records the process that serves
// the call (tool.Tool.Plugin), and the call carries it (Call.Plugin): a
// toolbox that hot-reloads routes the step's calls to the binary the step
// saw. The set holds the processes its list names, and those it started,
// until it is closed after the step's last tool/result, so the tool/call
// names the process that serves the call even when a reload replaced it
// while the model thought. With Loop.Sandbox set, a tool/call also records
// the sandbox the call runs under (nil from it: none); the Approver gets
// the same in ApprovalRequest.Sandbox and the call carries it
// (Call.Sandbox), so what is decided and sent is what is logged.
//
// # Permission
//
// A tool listed with NeedsPermission runs only once the Loop's Approver
// allows the call (a nil Approver allows every call). The loop asks after the
// call's tool/call is logged, one call at a time, and logs the answer as a
// permission/decision event right after it, with the Approval's Scope. The
// loop always asks the Approver, handing it the "always" answers the log
// already holds for the tool (SessionLog.Always, in ApprovalRequest.Always):
// the Approver decides whether one covers the call, after its deny rules,
// and says so with source "session". A rejected call is not run; its result is
// "Error: permission denied by user" (or the Approval's Reason). A failing
// Approver rejects the call. When the turn is cancelled while a question is
// open, nothing is logged for it and the call gets the cancelled result.
//
// # Cancellation
//
// Cancelling ctx stops the turn at any point. The model stream is abandoned;
// calls in flight see the cancelled context and Run waits for them to return
// (the toolbox must return promptly). A call whose tool/result was recorded
// before the cancellation keeps it; every other call of the step — in
// flight, finished but waiting for an earlier call's result, or never
// started — gets a tool/call if it had none and the error result
// "Error: cancelled: the user stopped the turn before this call finished",
// which keeps the transcript valid for the next turn. If the cancellation
// cut the model's answer short, the text and reasoning streamed so far are
// logged as the step's assistant/message (without tool calls) when there are
// any. Then step/end and turn/end cancelled; Outcome.Err is nil. The log
// writes after a cancellation do not depend on ctx.
//
// # Failures
//
// A model failure (the stream yields an error) ends the turn with reason
// error, TurnEnd.Error the error's message on one line and Outcome.Err the
// error itself; text streamed before the failure is logged as for a
// cancellation. A failing SessionLog append is fatal to the turn: in-flight
// calls are cancelled and awaited, the loop tries to resolve the step's
// calls, end the step and end the turn with reason error, and Run returns
// Outcome.Err. A failing Sync makes the outcome an error too. A panicking
// tool becomes an error result.
package agent
