// Package toolbox runs the host's tool plugins: it discovers them in the
// plugin dirs, launches them (through pluginapi) or attaches to ones being
// debugged, keeps an immutable
// registry of which process serves which tool, routes tool calls to them,
// checks what they return, and supervises them — a crashed plugin is
// restarted on its next use, and one that keeps crashing is disabled. With
// Config.Watch it hot-reloads a plugin whose file changes, without failing
// a call. It speaks the host's tool vocabulary (host/tool); convert.go is
// the one crossing to and from the plugin SDK's types. [Toolbox.Step] is
// the agent loop's tool set of one step (agent.Step), which package engine
// merges with a session's MCP tools.
//
// # Discovery
//
// [Open] reads each dir of Config.Dirs in order, and each dir's entries in
// file-name order. Every regular executable file (a symlink to one counts)
// is a candidate. Directories, dotfiles, editor leftovers (`*~`, `*.swp`,
// `*.swx`), temporary files (`*.tmp`, `go build`'s `*-go-tmp-umask` probe)
// and files without an exec bit are skipped silently. A missing dir is a
// warning in the log: the user may have no plugins yet. A plugin dir or
// file (a symlink's target) that others could write — mode bits writable
// by group or others, or owned by a user other than this one or root — is
// refused: a Failure ("plugin file is writable by group or others (mode
// 0775); refused: chmod go-w <path>"), one warn line, and `harness
// plugins` shows it; a refused dir loads none of its files.
//
// Candidates start concurrently (Config.Parallel at a time); Describe must
// answer within Config.DescribeTimeout (5 s), or the file fails with "did
// not answer Describe within 5s", so a hanging plugin delays Open by that
// and no other plugin waits for it. Each is
// hashed, copied into the cache (below), launched from the copy, asked to
// Describe itself, checked — a plugin name, tool names matching
// ^[a-zA-Z0-9_-]{1,64}$ and unique, parameter schemas that pass
// pluginapi.CheckSchema (JSON objects of type object), event types of the form family/name that are not the
// host's own structural types — and configured with the host's services.
// Then they register in discovery order. Two files whose plugins share a
// plugin name or a tool name are both refused, whatever the dir order,
// each failure naming the other ("tool "bash" is also offered by …;
// neither is used: remove or rename one"), and their processes stopped: a
// plugin in an earlier dir cannot take over a later one's tool (say a
// `bash` that declares it needs no permission). A reattached plugin still
// wins over a file (below), and a file added by a reload that clashes with
// a registered plugin is the one refused. A file that fails any step (not a plugin, another
// protocol version, a failed Describe, an invalid description, a conflict)
// becomes a [Failure] with a one-line reason naming the file, is logged at
// warn and skipped; the toolbox works with the others. [Toolbox.Plugins]
// lists plugins and failures for `harness plugins`.
//
// Every plugin, at its first start, a restart or a reload alike, gets the
// minimal environment of pluginhost.PluginEnv — the allow-list of
// pluginhost.DefaultPassEnv plus the names of Config.PluginEnv, then the
// variables of Config.Env (the host's settings for plugins: the sandbox) —
// never the host's whole environment, so the host's API keys stay out of every
// plugin and of what it starts. With Config.Supervisor (the engine passes
// host/keeper's) every plugin process runs under that supervisor, which
// kills what the plugin left when it ends — stopped, crashed, SIGKILLed —
// and everything below it when the host dies; crash results, restarts
// and the pid a call records are the plugin's, as without it.
//
// # Confinement
//
// With Config.Confiner (the engine passes one built on host/keeper and
// package sandbox) every start launches the plugin confined: first with
// what the Confiner grants the file's bytes before they say anything (a
// trust record's capabilities, or the default), then, when its Describe
// declares more (pluginapi.Capabilities), the Confiner is asked again
// with the declaration — a built-in or a binary trusted with those very
// capabilities starts again with them; anything else is a failure whose
// one line names `harness plugins trust NAME`, never a plugin started
// with less confinement than it was granted. A profile's "cwd" is the
// working directory of the call whose start it is (Config.Cwd for a start
// no call asked for: Open, StartEarly, a reload); a plugin granted a write
// in its cwd refuses, with a result saying so, a call from a session
// whose cwd lies elsewhere. [PluginInfo.Capabilities] is what the plugin
// declared. A [GateConfiner] also bounds the host's text files for the
// process ([FileGate]): Configure hands it HostServices whose ReadTextFile
// and WriteTextFile refuse a path the plugin could not read or write
// itself, so that the host does not do for it what its confinement
// refuses.
//
// # Start on first use
//
// With Config.StartOnUse (the engine sets it) Open starts no plugin whose
// description it has: the description a binary gave — the whole Describe
// answer as JSON, so fields added to it later come along — is cached next
// to its cache entry as CacheDir/<sha256>.describe.json
// (plugincache.Cache.StoreDescription), and read back at the next Open
// for the same bytes. A cached description is checked like a live one
// (its sha256, a check sum of its bytes, then every check of Open); one
// that is missing, unreadable, damaged or invalid is ignored with a warn
// line, and the plugin is started once to be described again — never
// trusted, never fatal. A binary seen for the first time, or changed
// while no harness ran (a new sha256), is started, described, checked,
// configured and stopped again at Open, so its tools are never offered
// from a stale description.
//
// Tools then lists the plugin's tools with its binary's name, version and
// sha256 and PID 0, and Plugins shows it "not started". The first call to
// one of its tools starts it (launch, Describe, Configure, a check that it
// offers the tools of its description — a mismatch removes the cached
// description and fails the start, which counts as a crash); that call
// waits for the start, and concurrent first calls share it. Everything
// else holds as for a plugin started at Open: crash handling and the
// breaker, pinning (checked when the file is hashed at Open or a reload),
// hot reload, and provenance — Result.Plugin names the process that
// served. A step's tool list names PID 0 for a plugin that was not
// running when the step began (the list cannot hold a process that does
// not exist yet); [Step.Warm], which the loop calls as soon as the
// model's answer names a tool, starts and holds its process
// ([Toolbox.StartTool]), and [Step.Tool] then returns the entry naming it,
// so that the loop logs every tool/call with the pid that serves it.
//
// A plugin that asks to run for as long as the host does
// (pluginapi.Plugin.StartEarly, Description.StartEarly, protocol minor 3)
// is started at Open as without StartOnUse, from a cached description or
// not, and is never stopped when idle; a crash or a reload starts it again
// as usual.
//
// # Stop when idle
//
// With Config.IdleTimeout > 0, a running plugin is stopped once it has
// been idle that long: no call in flight, no step holding it
// ([Toolbox.HoldTools]), and no session state in its process. A plugin
// says it holds state for a session in its results
// (pluginapi.Result.HoldsState, set for every result by
// pluginapi.Plugin.HoldsState: bash holds a session's background tasks,
// running or with output left to read); it is kept until a later result
// of that session says false or the session is closed
// ([Toolbox.SessionClosed] acknowledged). The stop shuts the process's
// call gate first (a call racing it starts a new process instead), then
// swaps in a snapshot listing no process for the plugin, then stops the
// process; it is not a crash. The next call starts it again. Reattached
// plugins are never stopped.
//
// # Reattached plugins
//
// Config.Reattach (the CLI reads it from $HARNESS_REATTACH_PLUGINS, see
// pluginhost.ParseReattach) names plugins their developer started by hand
// in debug mode, under a debugger. Open attaches to each
// (pluginhost.Attach) instead of launching a file, asks it to Describe
// itself, checks the description as a discovered plugin's — the name it
// gives must also be the one it is listed under — and configures it with
// the host's services. Reattached plugins register first, in name order,
// so a discovered plugin that reuses one of their tool names is the one
// refused, naming both. A plugin dir's file whose plugin has the name of a
// reattached one is not a conflict: the plugin under the debugger wins, and
// the file is stopped and skipped with an info line ("plugin X is
// reattached for debugging; skipping its file"), at Open and when a reload
// finds it. A reattached plugin that cannot be attached to, or is refused,
// is a Failure like a bad file.
//
// A reattached plugin has no file: [Toolbox.Plugins] lists it with Path
// "reattach:<name>" ([ReattachPath]), no sha256, and the pid of its
// reattach line, which is also the PID in Tool.Plugin and Result.Plugin
// (its event.Plugin has no SHA256). It belongs to its developer: it is
// never pinned (no lock file applies), reloaded (the watcher ignores it)
// or restarted. Once its process is gone — the developer stopped it — every
// call to its tools gets `Error: plugin <name> (reattached for debugging)
// is gone; restart it and harness`, a crash is not counted, and Plugins
// shows it stopped with that error. Close only detaches from it: the
// process runs on, and the next harness may attach to it again.
//
// # The content-addressed cache
//
// What runs is never the discovered file but its copy
// Config.CacheDir/<sha256>: 0500 files in a 0700 dir. So the discovered file
// can be overwritten while its plugin runs (`cp` onto a running executable
// fails with ETXTBSY; a copy in the cache is never written again), a
// restart runs the same bytes as the first start, and the bytes hashed are
// the bytes that run. Before any start (at Open, a restart, a reload) the
// entry is checked against CacheDir/book.json, which records its identity
// (device, inode, size, mtime, ctime) when its bytes were last hashed: an
// entry whose identity moved is hashed again (~15 ms for 19 MB, once), and
// one whose bytes no longer match its name (a same-size tampered copy) is
// removed and copied again from the plugin file, or the start fails — it
// never runs under the original sha256. The fast path is one stat.
//
// The cache is package plugincache: one pipeline (stage, hash, place)
// turns a plugin file into an entry at Open as at a reload, and
// CacheDir/index.json spares Open reading every binary again (see its
// package doc).
//
// # The registry
//
// The registry is an immutable snapshot — tool name → (plugin, process,
// spec), plus the sorted tool list and the failures — held in an
// atomic.Pointer. Readers load it without locking; a change builds a new
// snapshot and swaps it in (writers are serialised). [Toolbox.Tools]
// returns the current snapshot's tools, each naming the process serving it
// (plugin name, version, sha256, pid). [Toolbox.Call] routes through the
// process its snapshot lists while that process lives, and asks the
// plugin's supervisor for a live one otherwise. A restart swaps in a
// snapshot with the new process; a reload swaps in a snapshot with the new
// version and drains the old one (below).
//
// # Calls
//
// A call to a tool the snapshot does not list gets `Error: unknown tool
// "x"`; arguments that are not a JSON object get `Error: invalid arguments:
// …` without reaching the plugin (empty arguments count as {}). The events
// of a result are checked, once for the whole host: each must have a type
// the plugin declared in Describe and data event.Propose accepts (a JSON
// object within its bound), or the whole result becomes an error result
// without events, so nothing is appended. The events travel on as
// tool.Checked, which the session appends without checking them again.
// Every tool.Result names the plugin that served it (with PID 0 when no
// process was reached).
//
// [Toolbox.Preview] asks a plugin what a call would do only for a tool
// that declared a preview (Tool.HasPreview: pluginapi.ToolSpec.HasPreview,
// or any tool of a plugin before protocol minor 5, which declares none and
// is asked on every call as before); a tool without one costs no RPC and
// starts no process. A call's title is the preview's, else the tool's
// declared template expanded for the call's arguments ([Toolbox.Title],
// pluginapi.ExpandTitle, no RPC), which Preview fills in; a caller with
// neither shows the tool's name.
//
// # Crashes
//
// A plugin that dies during a call turns that call into `Error: plugin
// <name> crashed during the call: <its last stderr lines, joined with " |
// ", at most ~500 bytes>`; the session goes on. Its death — during a call or
// between calls, noticed as soon as the client sees the process exit —
// counts as a crash. The next call to one of its tools restarts it from the
// cached copy (Describe, Configure, and a check that it offers the same
// tools) and swaps in a snapshot with the new process; a failed restart
// counts as a crash too. Restarts back off: after the n-th crash within
// Config.CrashWindow the next start waits RestartBackoff·2^(n-1), at most
// MaxRestartBackoff; a call waits for that if it is at most MaxRestartWait
// and fails with a clear error otherwise. After MaxCrashes crashes within
// CrashWindow (default 5 in 60 s) the plugin is disabled: its tools stay
// listed, and calls to them get `Error: plugin <name> is disabled after 5
// crashes in 60s; see the log (harness plugins)`. A plugin stays disabled
// for the toolbox's life.
//
// # Hot reload
//
// With Config.Watch (the CLI's default; --watch=false turns it off) the
// toolbox watches each plugin dir with fsnotify — the dir, not its files,
// since compilers and editors replace files by rename; a dir that does not
// exist yet is awaited through its parent. Events for names discovery
// skips (dotfiles, editor leftovers, temporary files, go build's umask
// probe) are ignored. Each file is debounced on its own: a reload starts
// once its events have been quiet for Config.Debounce (150 ms), at most
// Config.MaxDebounce (2 s) after the first. Reloads of one file never
// overlap; events during one cause one more pass after it. Reloads of
// different files run concurrently.
//
// A pass compares the file with what serves:
//
//   - Gone (or no longer an executable regular file): its plugin is
//     withdrawn — a snapshot without its tools is swapped in, so a call
//     to them gets "unknown tool" — then drained and stopped. A failure
//     recorded for the file is forgotten. Creating the file again adds it
//     back.
//   - Written after its last event, or while it is read (size or time
//     moved): still being written; the pass waits for quiet again.
//   - Otherwise it is copied into the cache dir (in the kernel) and the
//     copy hashed, so that the bytes hashed are the bytes that run. The
//     same sha256 as the serving version (a no-op go build, a touch):
//     the copy is dropped and nothing happens.
//   - New bytes: the copy goes in place as cache/<sha256> → start it →
//     handshake → Describe → the checks of Open, and no plugin name or
//     tool name of another file's plugin → Configure → swap in a snapshot
//     with the new version → drain the old process → stop it. A file that
//     served no plugin (new, or failed before) is added the same way.
//
// Each of those stages is timed (StageDebounce … StageStop, from the first
// event on), logged as one line — at info "plugin reloaded" with
// <stage>_ms, total_ms and serving_ms (event to swap) fields, at warn
// "plugin reload failed" with the stage and error — kept per file as
// PluginInfo.LastReload (and in Config.ReloadsFile, for `harness plugins`
// in another process), and passed to Config.OnReload. Figures are in
// BenchmarkReload: about 220 ms from a rename to the first call answered
// by the new binary, 150 ms of it the debounce.
//
// Guarantees:
//
//   - Last good version: a failure at any stage (not a plugin, a crash at
//     start, a failed Describe or Configure, an invalid description, a
//     clash with another plugin) stops the candidate and changes nothing;
//     the previous version serves on, and the failure is reported (for a
//     file that served no plugin it is also a Failure, as at Open). No
//     retry until the file changes again.
//   - No failed call: the new snapshot is stored before the old process
//     stops taking calls. Every call counts itself in and out of the
//     process it uses; the drain waits for the count to reach zero and
//     then, in the same step, closes the process to new calls. A call that
//     picked the old process just before the swap either got in (and
//     completes there, with the old version's answer) or finds it closed
//     and routes again through the new snapshot. Only then is the old
//     process stopped (go-plugin's Kill would abort calls in flight).
//   - A step keeps its processes: [Toolbox.Step] (the agent loop's
//     per-step set, on [Toolbox.HoldTools]) holds every process it lists,
//     and every process it started, until the step is closed. A replaced process stays alive while held, and the step's calls
//     — Call.Plugin set from the Tool.Plugin of its list — run on it, so
//     the tool/call logged from the list names the binary and pid that
//     serve the call. The drain waits for the holds first, however long
//     the model thinks; later steps get the new version. Result.Plugin
//     always names the process that served.
//   - Drain timeout: once no step holds the old process, a call still
//     running on it Config.DrainTimeout (30 s) later — one made without a
//     hold — is cancelled with the result "Error: plugin <name> was
//     replaced or removed during the call, and the call did not end within
//     30s; it was cancelled", and Reload.Interrupted counts it.
//   - State: session state lives in the host's log, not in plugin
//     processes, so a reload loses none of it (a todo list written before
//     is intact after). What a plugin keeps in its own process — the bash
//     plugin's background tasks — ends with the old process.
//
// A file that is gone, or no longer executable, when its debounce fires is
// withdrawn only if it stays so for Config.MaxDebounce (2 s): a delete
// followed by a new write (`go build -o` across file systems) is one
// replacement, its tools never withdrawn. An ELF file whose headers point
// past its end (cp truncates, then writes; a pause longer than the
// debounce) is still being written: the pass waits for quiet again, and
// only a file unchanged for MaxDebounce is reported as incomplete.
//
// A symlink in a plugin dir is watched as a link: a change of its target
// elsewhere is not seen.
//
// # Pruning the cache
//
// Open and every successful reload remove the cache entries that no
// registered or draining plugin runs and that were last started (or
// written) more than Config.CacheGrace (24 h) ago, and temporary files as
// old; `harness dev` rebuilds (~19 MB each) go a day after they stop
// serving. A host sharing the state dir that runs an older version for
// longer than that cannot restart it after a crash (the start fails
// naming the missing copy); a reload of its file starts the current one. Close stops the
// watcher, cancels reloads in progress (their candidates are stopped,
// their drains cut short) and waits for them.
//
// # Concurrency
//
// All methods are safe for concurrent use. Call may run concurrently for
// any tools, including several calls to one plugin (whether that is wise
// is the tool's ConcurrencySafe flag, for the caller to honour). Call
// returns promptly once its ctx is done, with `Error: cancelled`. Concurrent
// calls that find a plugin dead share one restart. [Toolbox.Close] stops
// every plugin concurrently, each within Config.StopTimeout before its
// process group is killed, waits for restarts in progress, and leaves no
// plugin process behind but the reattached ones, which it only detaches
// from; calls after Close fail.
package toolbox
