// Package toolbox runs the host's tool plugins: it discovers them in the
// plugin dirs, launches them (through pluginapi), keeps an immutable
// registry of which process serves which tool, routes tool calls to them,
// checks what they return, and supervises them — a crashed plugin is
// restarted on its next use, and one that keeps crashing is disabled.
// cmd/harness adapts a [*Toolbox] to the agent loop's Toolbox interface.
//
// # Discovery
//
// [Open] reads each dir of Config.Dirs in order, and each dir's entries in
// file-name order. Every regular executable file (a symlink to one counts)
// is a candidate. Directories, dotfiles, editor leftovers (`*~`, `*.swp`,
// `*.swx`), temporary files (`*.tmp`, `go build`'s `*-go-tmp-umask` probe)
// and files without an exec bit are skipped silently. A missing dir is a
// warning in the log: the user may have no plugins yet.
//
// Candidates start concurrently (Config.Parallel at a time). Each is
// hashed, copied into the cache (below), launched from the copy, asked to
// Describe itself, checked — a plugin name, tool names matching
// ^[a-zA-Z0-9_-]{1,64}$ and unique, parameter schemas that pass
// pluginapi.CheckSchema (JSON objects of type object), event types of the form family/name that are not the
// host's own structural types — and configured with the host's services.
// Then they register in discovery order; a plugin whose name or one of whose
// tool names an earlier plugin took is refused, naming both files, and its
// process is stopped. A file that fails any step (not a plugin, another
// protocol version, a failed Describe, an invalid description, a conflict)
// becomes a [Failure] with a one-line reason naming the file, is logged at
// warn and skipped; the toolbox works with the others. [Toolbox.Plugins]
// lists plugins and failures for `harness plugins`.
//
// # The content-addressed cache
//
// What runs is never the discovered file but its copy
// Config.CacheDir/<sha256>: 0500 files in a 0700 dir. So the discovered file
// can be overwritten while its plugin runs (`cp` onto a running executable
// fails with ETXTBSY; a copy in the cache is never written again), a
// restart runs the same bytes as the first start, and the bytes hashed are
// the bytes that run. A copy is written to a temporary file and renamed
// into place; one already present with the right size is reused (entries
// only ever appear by that rename, under the name of the hash of the bytes
// written). The write happens with syscall.ForkLock read-held, so no
// concurrent fork can inherit the write fd and make the exec of the copy
// fail with ETXTBSY (Go issue 22315).
//
// Hashing a 19 MB plugin takes ~15 ms, longer than starting it, so
// CacheDir/index.json remembers each discovered file's hash by the file's
// identity (device, inode, size, modification and change times; Linux
// only). A file whose identity changed is hashed again; a file changed in
// the last two seconds is not remembered (coarse timestamps). A stale entry
// could at worst start the previous cached version, never unhashed bytes.
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
// snapshot with the new process; hot reload (a later change) will swap in
// a snapshot with a new plugin and drain the old one the same way.
//
// # Calls
//
// A call to a tool the snapshot does not list gets `Error: unknown tool
// "x"`; arguments that are not a JSON object get `Error: invalid arguments:
// …` without reaching the plugin (empty arguments count as {}). The events
// of a result are checked: each must have a type the plugin declared in
// Describe and a JSON object as data, or the whole result becomes an error
// result without events, so nothing is appended. Every [Result] names the
// plugin that served it (with PID 0 when no process was reached).
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
// # Concurrency
//
// All methods are safe for concurrent use. Call may run concurrently for
// any tools, including several calls to one plugin (whether that is wise
// is the tool's ConcurrencySafe flag, for the caller to honour). Call
// returns promptly once its ctx is done, with `Error: cancelled`. Concurrent
// calls that find a plugin dead share one restart. [Toolbox.Close] stops
// every plugin concurrently, each within Config.StopTimeout before its
// process group is killed, waits for restarts in progress, and leaves no
// plugin process behind; calls after Close fail.
package toolbox
