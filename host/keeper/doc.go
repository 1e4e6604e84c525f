// Package keeper runs a stdio MCP server under a small keeper process so
// that nothing the server starts outlives harness, even when harness is
// SIGKILLed.
//
// Pdeathsig (pluginhost.StartProcess) kills only the direct child when the
// host dies, and the process group is killed only on a clean shutdown: a
// server's own children — npx's node, uvx's python, a daemon it forked
// with setsid — would otherwise outlive a SIGKILLed host. The keeper is
// the host's binary run again (/proc/self/exe) with a hidden first
// argument that the binary's main hands to [Main] before anything else.
//
// # Contract
//
// [Wrap] turns the server's command into the keeper's; the host starts that
// with pluginhost.StartProcess as it would the server, then calls
// [Kept.Started], which returns the server's pid or exec's own error for
// it ("fork/exec /x: permission denied"). The keeper, on Linux:
//
//   - becomes a child subreaper (PR_SET_CHILD_SUBREAPER), so orphans,
//     setsid and double forks below it are reparented to it, never to init;
//   - gets SIGHUP, not StartProcess's SIGKILL, as its parent-death signal:
//     Wrap's command asks StartProcess for it, so the kernel sets it at
//     fork. (A prctl of the keeper's own would set it only for the thread
//     it ran on — the parent-death signal is per thread, and the kernel
//     sends each thread's — so a keeper whose goroutine was not on the
//     main thread was SIGKILLed with the host and left the server's
//     children running.) It checks that its parent is still the host;
//   - starts the server with its own stdin, stdout and stderr (the host's
//     pipes: the host talks to the server directly), its working directory
//     and environment, in its process group, with Pdeathsig SIGKILL; then
//     points its own stdio at /dev/null, so that it holds no copy of the
//     pipes and the server sees EOF when the host closes its stdin;
//   - forwards SIGTERM and SIGINT to the server;
//   - when the server ends, sends SIGTERM to every descendant left, SIGKILL
//     [Grace] later, and once none is left exits as the server did: the
//     same exit status, or killed by the same signal — so the host's crash
//     handling and its messages (about the server's command) do not change;
//   - on SIGHUP — the host died (Pdeathsig), or [Stop] asked — SIGKILLs
//     every descendant at once, then exits the same way.
//
// The keeper adds one process per stdio server (its cost is the host
// binary's start: a few MB of resident memory, a few milliseconds).
// Elsewhere than Linux, and in a binary whose main does not call [Main],
// [Wrap] leaves the command as it is and the server runs directly, as
// before: Main marks the binary as able to act as a keeper, so that a
// program embedding the engine is never run again with an argument it
// does not know.
//
// The bash plugin's fallback init (plugins/bash/init_linux.go) is the same
// kind of subreaper, written again on purpose: a plugin imports only the
// SDK, never the host, and the SDK is no place for a process keeper.
package keeper
