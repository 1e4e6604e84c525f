// Package pluginhost is the host side of the harness plugin protocol:
// [Launch] starts a plugin binary and returns a [Client] for it, [Attach]
// connects one to a plugin a developer runs under a debugger
// ([ParseReattach] reads $HARNESS_REATTACH_PLUGINS), [StartInProcess]
// connects one to a plugin served in the test's process (package
// plugintest wraps it), and [Client.Configure] serves the host's
// pluginapi.HostServices to the plugin. [PluginEnv] computes the
// environment a plugin is launched with.
//
// # Child processes that die with the host
//
// Every child process the host starts and that must never outlive it — a
// tool plugin, harness-llm (host/llm/llmproc), an MCP stdio server
// (host/mcpclient) — is started by [StartProcess], the one implementation
// of the rules: stdio pipes whose stdin write end only the host holds, its
// own session and process group ([Process.KillGroup] kills all of it; no
// controlling terminal, so no /dev/tty past host/termsafe), on Linux
// Pdeathsig SIGKILL from a goroutine locked to its OS thread for the
// child's lifetime (another signal when the command asks for it, for a
// child that cleans up first: host/keeper), and reaping as soon as it
// exits. [StartSupervised] starts one under a [Supervisor], a process
// that kills what the child left when it ends and everything below it
// when the host dies, even by SIGKILL: this module cannot import the
// host's (host/keeper), so the host hands it in — [LaunchConfig].Supervisor
// for plugins, [ProcessRunner.SetSupervisor] for harness-llm, and
// mcpclient for MCP servers; go-plugin's handshake on stdout and the
// stdin EOF pipe pass through it unchanged, and PIDs stay the supervised
// process's. [ProcessRunner] is
// the go-plugin runner over it (Launch and llmproc use it), and
// [LineTail] keeps a child's last stderr lines for the message about its
// death.
//
// # Who imports which
//
// Only the host imports this package (host/toolbox, cmd/harness, and
// plugintest, which plays the host in a plugin's tests). Plugins import
// package pluginapi, the contract and the plugin side, and never this one:
// a plugin binary links none of the launcher (arch_test.go checks `go list
// -deps ./plugins/...`). Both sides share the generated gRPC code and the
// wire rules in pluginapi/internal, which is why this package is in the
// plugin SDK's module (github.com/harness-dev/harness/pluginapi) rather
// than the host's: package pluginapi's doc says why.
//
// # Launching
//
// [Launch] runs the binary through its own go-plugin runner: the plugin's
// stdin is a pipe whose write end only the host holds (never the host's stdin, which belongs to
// ACP), its stdout and stderr are pipes read by go-plugin (never the host's
// stdout), it runs in its own process group, and its Unix sockets, and the
// host's broker socket for HostServices, live in a private 0700 temporary
// folder removed on Close. AutoMTLS is off (it costs ~30 ms a start; the
// 0700 folder keeps other users out). Messages may be up to 64 MiB each way.
// [Client.Close] asks the plugin to shut down, waits at most StopTimeout,
// then kills the whole process group (and, under a supervisor, the
// supervisor kills what is left below it). Start failures are [*StartError]s of
// one line each; a plugin that dies during a call gives an [*ExitError]
// carrying its last stderr lines.
//
// # Environment: the trust boundary
//
// A plugin is code the model drives (the bash plugin runs whatever command
// the model writes), so it is outside the host's trust boundary for
// secrets: the host reads its API keys from its own environment, and no
// plugin ever gets that environment. [Launch] starts every plugin with an
// explicit environment, built by [PluginEnv] from the host's:
//
//   - the variables [DefaultPassEnv] names: PATH, HOME, USER, LOGNAME,
//     SHELL, LANG, LANGUAGE, LC_*, TZ, TERM, COLORTERM, TMPDIR, XDG_*,
//     SSL_CERT_FILE, SSL_CERT_DIR and the proxy variables (HTTP_PROXY,
//     HTTPS_PROXY, NO_PROXY, ALL_PROXY, also in lower case) — less a
//     LC_*/XDG_* variable whose name looks like a secret ([SecretName]) and
//     any whose value is a URL with a password (a proxy's credentials; a
//     warning names it);
//   - the variables LaunchConfig.PassEnv names (the user's --plugin-env),
//     as they are;
//   - go-plugin's own (the magic cookie, PLUGIN_PROTOCOL_VERSIONS,
//     PLUGIN_UNIX_SOCKET_DIR, …), HARNESS_PLUGIN_LOG_LEVEL and
//     HARNESS_PLUGIN_EXIT_ON_STDIN_EOF, then LaunchConfig.Env.
//
// LaunchConfig.SkipHostEnv leaves out the first two. Nothing else of the
// host's environment reaches a plugin, whatever LaunchConfig says, and so
// nothing reaches what the plugin starts. [Attach] starts nothing: a plugin
// run by hand for a debugger has the environment its user gave it. What a
// plugin does with what it gets (the bash plugin filters its commands'
// environment again, and hides /proc) is the plugin's contract.
package pluginhost
