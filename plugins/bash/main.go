//go:build unix

// Command bash is the harness plugin serving the shell tools: bash runs a
// command line in a fresh `bash -c`, bash_output reads a background task,
// bash_kill stops one.
//
// Containment (Linux, proc_linux.go, init_linux.go). Every command, in
// the foreground or the background, runs under its own init: the plugin
// re-executes its own binary (/proc/self/exe, with a hidden argument
// main checks first) in a new PID and mount namespace — plus a user
// namespace mapping the plugin's uid and gid to themselves when it is not
// root. The init makes every mount private, mounts a fresh /proc, starts
// `bash -c` in its own session, forwards SIGTERM/SIGINT/SIGQUIT/SIGUSR1/
// SIGUSR2 to every process of the namespace, reaps every orphan, reports
// how bash ended, then stops what is left (SIGTERM, SIGKILL 2 s later).
// The init has the scrubbed environment and Pdeathsig SIGKILL: when the
// plugin dies, even by SIGKILL, the kernel kills every process of the
// namespace, so `&`, setsid and double forks cannot outlive it; inside,
// /proc shows only the command's own processes, so no
// /proc/<pid>/environ of the host or the plugins is readable. Without
// root, commands run as the same uid in a user namespace: files of other
// users show as nobody and set-uid programs (sudo) do not gain rights,
// and bash holds no capability in any set. As root, bash keeps root's
// other capabilities but loses, from its bounding set too, those that
// would uncover what the namespace hides (SYS_ADMIN: unmount /proc, mount,
// setns; SYS_RAWIO, SYS_MODULE, BPF, PERFMON); the init drops them on the
// thread that forks bash (init_linux.go's dropCapabilities).
//
// A command does not wait for its init to start: in a namespace the
// plugin keeps one init started ahead — namespace and /proc set up, the
// scrubbed environment, no capability — that waits for its command (the
// working directory and the line) on a pipe. It is the next command's
// alone: every command still gets a namespace of its own, and the next
// init starts as soon as one is taken. It dies with the plugin (Pdeathsig
// SIGKILL) and is ended at the plugin's exit.
//
// Where the kernel refuses the namespaces (EPERM, EINVAL, …, or the
// mounts fail; HARNESS_BASH_NO_NAMESPACE=1 forces it, for tests), the
// plugin says so once on stderr (the host's log) and falls back for good
// to an init that is a child subreaper (PR_SET_CHILD_SUBREAPER) with the
// same scrubbed environment: orphans of the command come back to it, it
// kills every descendant when bash ends, and it catches its parent's
// death (Pdeathsig SIGHUP) to SIGKILL them all. The plugin is a subreaper
// too and kills any process that comes back to it (an init it SIGKILLed)
// after each command, at a session's end and at exit. The fallback does
// not isolate /proc: a command sees every process and can read the
// /proc/<pid>/environ of this user's processes that do not protect it
// (the host's, unless it does as the plugin does); as root, all of them,
// the plugin's included; a process that daemonizes away from the tree
// before the init sees it (ptrace tricks) is not contained.
//
// Sandbox (Linux, policy.go, package sandbox). Every command runs under
// a sandbox.Policy the plugin builds per call from the sandbox the host
// sent with it (pluginapi.CallRequest.Sandbox, minor 4: mode, network,
// the writable roots — the session's cwd, the added folders and their git
// folders — deny-read paths, pids limit; the host logs the same on the
// tool/call), plus a private $TMPDIR per session. A sandbox it cannot read
// runs nothing. A call without one (an older host, a conformance check)
// gets workspace-write over the cwd and its repository's git folder,
// network off, unless HARNESS_SANDBOX (workspace-write | read-only | off)
// and HARNESS_SANDBOX_NETWORK (off | on | an allow-list of hosts) in the
// plugin's environment say otherwise. The policy's JSON goes
// to the init on its control pipe, before the cwd and the line. In a
// namespace the init binds the protected paths inside the roots
// read-only — the missing .vscode, .idea, .zed and .mcp.json of each root
// made first by the plugin as empty placeholders (sandbox.Placeholders,
// recorded in its private folder), removed once the last init using them
// is reaped (the result of a foreground command, and a task's end, wait
// for it, up to killGrace and a second) — hides the credential stores and harness's config and state
// (the session's folder, with its spill files, shown read-only), drops
// its capabilities, then confines the thread that forks bash: Landlock,
// RLIMIT_NPROC, seccomp. With the network off the init is started in a
// network namespace of its own (lo up); the init started ahead is made
// for the previous command's network, and replaced when the next one
// differs. With an allow-list (network a.org,*.b.com,
// sandbox.ParseNetwork) it is the same namespace, and the only way out
// is harness's proxy (proxy.go, package sandbox/netproxy): the plugin
// serves a Unix socket of the command's own in its private folder (which
// no command may write), its path in the policy; the init listens on
// 127.0.0.1:<port> in the namespace, forwards every connection to the
// socket from its own goroutines (not the thread that forks bash), and
// sets http_proxy, https_proxy, all_proxy (both cases) to it, no_proxy
// to the namespace's loopback. The result of a command whose requests
// the proxy refused names them and says only the user can widen the
// list; the socket goes when the init is reaped. In the fallback there
// is no namespace: an allow-list is no network at all, and a refused
// command's note says why. The plugin puts each init in a pids cgroup of
// its own (PidsLimit: the call's, else 1,024) where it can make one,
// removed once the init is gone. In the fallback there are no mounts and
// no network namespace: Landlock holds the writes outside the roots,
// seccomp refuses AF_INET, AF_INET6 and AF_PACKET sockets. A command that
// fails printing what a refusal prints gets a line naming the sandbox,
// what it allows (its writable roots by name) and how to escalate. Mode
// off is the plugin as it was. A bash call with sandbox "off" (and a
// one-line justification, required) runs that one command unsandboxed
// only when the host sends it with sandbox mode off: the host has asked
// the user (it reads the argument as this plugin does; see engine).
//
// At start the plugin calls prctl(PR_SET_DUMPABLE, 0): a process of the
// same non-root user can then neither read its memory nor its
// /proc/<pid>/environ (it is dumpable for the instant a user namespace's
// uid_map is written). Commands do not inherit this.
//
// Every command's bash leads its own session and process group (no
// controlling terminal), reads /dev/null as stdin, and sees the plugin's
// environment without secrets and harness internals, plus NO_COLOR=1 TERM=dumb
// PAGER=cat GIT_PAGER=cat GIT_TERMINAL_PROMPT=0 GIT_EDITOR=true
// GIT_SEQUENCE_EDITOR=true (env.go). Secrets are hidden by name (KEY,
// SECRET, TOKEN, PASSWORD, PASSWD, CREDENTIAL, WEBHOOK, *_PAT, *_DSN) and
// by value (URLs with a password, connection strings with password=,
// webhook URLs, PEM private keys, well-known token prefixes such as sk-,
// ghp_, github_pat_, xoxb-, AKIA, glpat-). A command always terminates: on its
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
// host, in a private $TMPDIR/harness-bash-<uid>/<session id>/). A
// session's spill files hold at most 256 MiB together: past it they stop
// growing and the cut marker says so. They are removed when the host
// says the session closed and when the plugin exits. Memory stays
// bounded whatever the command prints; past 1 GiB it is stopped.
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

// capabilities is what the plugin declares to the host: it sandboxes its
// commands itself (each under its init, in namespaces, mounts, Landlock,
// seccomp and a pids cgroup of its own), which the host's confinement of
// the plugin's process would refuse, and runs programs.
var capabilities = pluginapi.Capabilities{Sandboxes: true, Exec: true}
