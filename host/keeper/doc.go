// Package keeper is the supervisor every process the host starts and that
// must not outlive it runs under: a tool plugin (built in or third party,
// Go or not), harness-llm and a stdio MCP server. Nothing such a process
// starts outlives it, nor harness, even when harness is SIGKILLed.
//
// Pdeathsig (pluginhost.StartProcess) kills only the direct child when the
// host dies, and the process group is killed only on a clean stop: a
// process's own children — npx's node, a plugin's helper, a daemon it
// forked with setsid, a double fork — would otherwise outlive it, and a
// SIGKILLed host. The keeper is the host's binary run again
// (/proc/self/exe) with a hidden first argument that the binary's main
// hands to [Main] before anything else.
//
// # Contract
//
// [Wrap] turns a command into the keeper's; the host starts that with
// pluginhost.StartProcess (pluginhost.StartSupervised does all of this:
// the host's toolbox, llmproc and mcpclient use it) as it would the
// command, then calls [Kept.Started], which returns the kept process's
// pid or exec's own error for it ("fork/exec /x: permission denied"). The
// keeper's argv carries a [Request]: the host's pid (and, from
// [WrapConfined], the sandbox.Profile to confine the process to) as JSON,
// then the binary and its argv as they are. The keeper, on Linux:
//
//   - becomes a child subreaper (PR_SET_CHILD_SUBREAPER), so orphans,
//     setsid and double forks below it are reparented to it, never to init;
//   - gets SIGHUP, not StartProcess's SIGKILL, as its parent-death signal:
//     Wrap's command asks StartProcess for it, so the kernel sets it at
//     fork. (A prctl of the keeper's own would set it only for the thread
//     it ran on — the parent-death signal is per thread, and the kernel
//     sends each thread's — so a keeper whose goroutine was not on the
//     main thread was SIGKILLed with the host and left the process's
//     children running.) It checks that its parent is still the host;
//   - with a profile, confines the locked thread that will fork the
//     process (sandbox.ConfineThread, its socket folder
//     $PLUGIN_UNIX_SOCKET_DIR writable, and with Request.Temp a private
//     TMPDIR removed when the keeper ends) — the process inherits it and
//     the keeper's other threads stay as they were; where it cannot (no
//     Landlock) the process is not started: "keeper: confine …" is
//     Started's error. [WrapConfined] fails with [ErrCannotConfine] where
//     no keeper runs, rather than run the process unconfined;
//   - starts the process with its own stdin, stdout and stderr (the host's
//     pipes: the host talks to the process directly — go-plugin's
//     handshake on stdout, the stdin whose EOF tells a plugin the host
//     died), its working directory and environment, in a process group of
//     its own, with Pdeathsig SIGKILL; then points its own stdio at
//     /dev/null, so that it holds no copy of the pipes and the process
//     sees EOF when the host closes its stdin;
//   - forwards SIGTERM and SIGINT to the process;
//   - when the process ends — it exits, crashes, is SIGKILLed by the OOM
//     killer or by the host (which kills the process's group to stop it,
//     never the keeper's) — sends SIGTERM to every descendant left,
//     SIGKILL [Grace] later, and once none is left exits as the process
//     did: the same exit status, or killed by the same signal — so the
//     host's crash handling and its messages (about the process) do not
//     change;
//   - on SIGHUP — the host died (Pdeathsig), or [Kept.Stop] asked —
//     SIGKILLs every descendant at once, then exits the same way.
//
// The keeper adds one process per kept process (its cost is the host
// binary's start: a few MB of resident memory, a few milliseconds; see
// the README's performance table). Elsewhere than Linux, and in a binary
// whose main does not call [Main], [Wrap] leaves the command as it is and
// the process runs directly, as before: Main marks the binary as able to
// act as a keeper, so that a program embedding the engine is never run
// again with an argument it does not know.
//
// The bash plugin's per-command init (plugins/bash/init_linux.go) is the
// same kind of subreaper, written again on purpose: a plugin imports only
// the SDK, never the host, and the SDK is no place for a process keeper.
package keeper
