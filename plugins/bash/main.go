//go:build unix

// Command bash is the harness plugin serving the shell tools: bash runs a
// command line in a fresh `bash -c`, bash_output reads a background task,
// bash_kill stops one.
//
// Every command leads its own session and process group (no controlling
// terminal), reads /dev/null as stdin, and sees the plugin's environment
// without secrets and harness internals, plus NO_COLOR=1 TERM=dumb
// PAGER=cat GIT_PAGER=cat GIT_TERMINAL_PROMPT=0 GIT_EDITOR=true
// GIT_SEQUENCE_EDITOR=true (env.go). A command always terminates: on its
// timeout (default 2 minutes, at most 10) or a cancel its whole group gets
// SIGTERM, then SIGKILL 2 s later, and the output pipe is read for at most
// 0.5 s more, so a grandchild holding it cannot hang the call; what a
// finished command left running in its group is stopped the same way
// (run.go).
//
// Stdout and stderr arrive merged, in order. The model sees at most 30,000
// characters: the first third and the last two thirds, with a marker
// saying how much was cut and where the full output is — a spill file
// bash-<call id>-<random>.log (bash-<task id>-… for background tasks,
// 0600) written only when the output is cut, in the session's folder
// <state-dir>/sessions/<session id>/ (or, without a state dir from the
// host, in a private $TMPDIR/harness-bash-<uid>/<session id>/). Memory
// stays bounded whatever the command prints; past 1 GiB it is stopped.
// Invalid UTF-8 becomes U+FFFD, terminal escapes are dropped, other
// control bytes are shown as control pictures (output.go). While a
// command runs, its output streams as progress, at most 10 chunks a
// second.
//
// Background tasks (tasks.go) belong to the session that started them;
// they are stopped when the host says the session closed and when the
// plugin exits.
package main

import (
	"os"

	"github.com/harness-dev/harness/pluginapi"
)

func main() {
	if isInit(os.Args) { // a command's init, re-executed by the plugin
		os.Exit(runInit(os.Args))
	}
	b := newPlugin(os.Environ(), os.TempDir())
	b.sb.harden()
	pluginapi.Serve(b.plugin())
}
