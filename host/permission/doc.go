// Package permission decides whether a tool call that needs permission may
// run: allow, deny, or ask the user — the asker is the editor (ACP
// session/request_permission) or the terminal.
//
// # Modes
//
// A session has a mode ([Mode]; [Modes] lists them with names and
// descriptions), logged as permission/mode; the caller puts the session's
// current mode in Policy.Mode for each check, so a switch applies to the
// next call decided. A tool's kind (Request.Kind, ACP's ToolKind) says
// what the mode does with it:
//
//   - read-only: tools of kind read, search and think go on as in ask;
//     every other call that needs permission (edits, bash, fetch, unknown
//     kinds) is rejected with a result saying the session is read-only
//     and how to switch. Allow rules and "always allow" answers do not
//     lift it.
//   - ask (the default): what no rule or answer decides is asked.
//   - accept-edits: an edit-kind call whose file_path (absolute, or
//     relative to Request.Cwd) is inside the cwd — compared without "..",
//     with the symlinks of the part that exists resolved; two file_path
//     arguments, none, or a dangling symlink count as outside — runs
//     without asking; everything else is asked as in ask.
//   - auto: what the sandbox holds runs without asking — calls of kind
//     read, search and think, edits inside the cwd (as in accept-edits),
//     and calls the caller marks Request.Sandboxed (the bash plugin's
//     commands, which run in an enforced sandbox); everything else (MCP
//     tools, other plugins' execute or edit tools, edits outside the cwd)
//     is asked as in ask. Ask rules still ask. The caller must refuse
//     auto where the sandbox cannot hold it (engine: the sandbox setting
//     off, or a kernel that does not enforce its writes and network): this
//     package trusts Sandboxed.
//   - allow-all (--yes): what no rule decides runs.
//
// Deny rules win over every mode. A call asking to run outside the
// sandbox (Request.Escalate: bash's sandbox "off", with a one-line
// Justification the question shows) is refused in read-only, and in every
// other mode but allow-all it is a protected question (below): asked even
// in auto, no allow rule or "always" answers it, no "always" is offered,
// and with nobody to ask it is refused, saying how the user can allow it
// (--mode allow-all or --sandbox off). A plugin's own question about its
// running call (Request.Once: fs reaching outside the project) is asked in
// every mode but allow-all — accept-edits never answers it — and is a
// protected question (below): no allow rule and no "always" answer about
// the tool answers it, it offers no "always", and with nobody to ask it
// is refused, naming --yes.
//
// # Protected paths
//
// Some files steer the agent or the repository rather than being the
// work: the agent must not rewrite them on the strength of a mode or an
// earlier "always". A call that may write (any kind but read, search and
// think) and names a protected path in its arguments is asked in ask and
// accept-edits mode even inside the cwd; no allow rule and no "always
// allow" answer (of the tool, of a command prefix, or of edits in this
// session) lets it run, and its question offers no "always" (an "always"
// answer given anyway counts once). Deny rules and "always reject"
// answers still reject it, read-only still refuses it, and allow-all
// still runs it without asking: allow-all means what it says. With nobody
// to ask it is refused, saying the path is protected. Request.Protected
// and ProtectedWhy tell the asker which path and why
// (Request.ProtectedNote), so the question can say so.
//
// Protected are:
//
//   - Policy.Protected: harness's own files and folders — its config
//     folder and config file (also one given by --config), the permission
//     rules file, mcp.json, the state folder (sessions, plugin cache) and
//     the plugin folders with their lock files (DIR.lock);
//   - every path with an element named .git, .mcp.json, .vscode, .idea or
//     .zed, in any folder;
//   - the folder a .git FILE points to ("gitdir: …", a worktree's or a
//     submodule's) and that folder's commondir, for a .git file in the
//     cwd or a parent, or in the named path's folder or a parent.
//
// The path arguments are the string (or list of strings) values, at any
// depth, of keys ending in path, paths, file, files, filename, dir,
// directory or folder, or named source, src, destination, dest, target,
// from, to or uri (a file:// URI gives its path); a leading ~/ is read
// both as written and as the home folder. Names compare in any case
// (.GIT is .git, as on a case-insensitive disk). Each path is checked as
// written (made absolute against the cwd) and as the kernel would walk
// it: every symlink followed, the last one and a dangling one too (a
// write through it creates its target), so a link in the project to
// .git/config, or a new file under a linked folder, is protected; a path
// whose symlinks cannot be resolved (a loop) is treated as protected. A
// call of kind delete or move also touches what a folder it names holds:
// the folder of a protected path, and one holding an entry of a protected
// name (the project, with its .git). A tool of no kind (an MCP tool
// without annotations) is not taken to: a rule the user wrote for it,
// given the project folder, still holds.
//
// What it cannot see: a tool that writes somewhere its arguments do not
// name (a path built from other arguments, a default folder), a hard link
// to a protected file, the paths of a plugin's own question (Request.Once:
// not looked at, as the question is protected anyway). A command line counts as touching a
// protected path when a redirection writes to one (> .git/hooks/x), when a
// known word of one of its commands names one (cp x .git/hooks/pre-commit,
// tee ~/.config/harness/permissions.json, of=.git/config; a word that
// starts with $HOME or ${HOME} counts as ~/…; against the call's workdir; rm and mv also take along what a folder holds; readers
// such as cat, ls and grep are left out), or when it runs a git config
// that may write; but
// a program can still write files no word names (a script, make, a
// computed path: $(…) is unknown), so an allow rule for such a program
// still lets it write them (see Command lines: deny rules are not a
// sandbox).
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
// A rule without a prefix is about every call to its tool. A tool name
// ending in "*" names every tool it starts: "mcp__github__*" is every tool
// of the MCP server github. A prefix names a
// command and its leading arguments, as bash words: "git status" matches
// the commands git status and git status -s, not git statusx; "rm " and
// "rm" both mean the command rm with any arguments. A prefix that is not
// one command and its literal arguments (a pipe, a $VAR) is refused when
// the file is read. So is a file another user could have written — owned
// by a user other than this one or root, or writable by group or others
// (package ownership): rules someone else can rewrite would allow what
// the user denied.
//
// # Command lines
//
// A call whose arguments hold a "command" string (bash) is a command line.
// [ParseLine] parses it with mvdan.cc/sh (bash syntax) and finds every
// simple command it would run: after ; && || | & and newlines, in $( ),
// backticks, <( ) and >( ), here-documents, subshells, groups,
// if/while/until/for/case bodies, functions and coproc; behind assignments
// (FOO=1 rm), ! and time; behind the wrappers env (its options and NAME=val
// arguments), command, exec, builtin, time, timeout, nice, ionice, nohup,
// stdbuf, setsid, chroot, busybox, sudo, doas, xargs, watch and find -exec;
// and in the strings run by bash/sh/zsh/dash/ksh/mksh/ash -c, eval, sudo -s,
// watch, trap and the -C callbacks of mapfile, readarray and compgen,
// recursively, to a bounded depth (a line nested deeper is unknown).
// Quotes and backslashes
// are removed ("rm", r\m and 'rm' are rm) and a command given with a path
// matches by its base name (/bin/rm, ./rm).
//
// A line is unknown when it does not parse, when a command name is
// computed when it runs ($X, $(echo rm), a glob, a brace expansion), when a
// wrapper has an option we cannot read, when a shell reads its commands
// from its input (echo … | bash, bash -s, bash <<< …, bash /dev/stdin,
// source <(…)), when the line defines what a command name runs (alias
// x=…, hash -p), when it sets a variable whose value bash runs (BASH_ENV,
// ENV, PS1–PS4, PROMPT_COMMAND, BASH_FUNC_…) or expands one as a prompt
// (${x@P}), when xargs builds
// the command from its input (-I, xargs env), when the arguments name
// "command" twice, or when it is nested too deep. A word that a deny rule
// needs and that is computed when the line runs (rm $FLAGS with a rule
// "rm -rf") makes the line unknown too.
//
// # Decisions
//
// For a command line, in this order:
//
//  1. Deny: a deny rule without prefix, or one matching ANY command of the
//     line, rejects it. Deny always wins: over allow rules, over the mode
//     and over every "always" answer.
//  2. An "always reject" answer of the session matching any command
//     rejects it.
//  3. An unknown line is asked about when a deny rule or an "always
//     reject" answer exists for the tool (with nobody to ask: rejected,
//     saying why); otherwise a tool-wide rule or the mode decides. Allow
//     prefixes and "always allow" answers never allow an unknown line.
//  4. An ask rule matching a command the user has not answered "always"
//     for asks.
//  5. Allow: the line runs when EVERY command is allowed — by an allow
//     rule or an "always allow" answer matching it, or through the command
//     that runs it when the prefix names that command up to it (an allow
//     rule "sudo apt update" allows the apt update that sudo runs; one for
//     "bash -c 'make'" allows that exact string). A command run with
//     variables set (PATH=/tmp git status, env FOO=1 …), a bare assignment
//     or a for loop's variable, and a line that redirects output to a file
//     (other than /dev/null, /dev/stdout, /dev/stderr) are never allowed
//     by a prefix or an "always" answer.
//  6. Otherwise the mode (see Modes): allow-all allows, ask asks.
//
// A call without a command line (bash_kill) has only tool-wide rules:
// deny, then "always reject", "always allow", ask, allow, mode.
//
// What deny rules cannot see: what a program does once it runs — a script
// file (bash build.sh, source x.sh), python -c, awk's system(), make, git
// aliases, an ssh remote command, a program run by a wrapper not listed
// above (flock, taskset, strace, su -c …), a copy of a program under another
// name (cp /bin/rm del; ./del x). Nor do they see data that bash itself
// evaluates as code: a variable's value used in arithmetic runs the
// command substitutions of its array subscripts (x='a[$(rm y)]'; echo
// $((x)), also in [[ $x -eq 1 ]], ${a[x]}, declare -i, printf -v and test
// -v), and a variable set by read, printf -v or a nameref is not seen.
// They guard against the many shell spellings of a command; they are not a
// sandbox.
//
// # Always
//
// An "always" answer covers what the user saw. For a command line it is
// scoped to each top-level command's name and first argument ("git status
// -s" gives "git status"; through wrappers, up to the command they run:
// "sudo apt update", "timeout 5 make all"; a -c string or eval in full).
// A later line is covered only when every command falls under a recorded
// scope or an allow rule. The scopes are recorded with the decision
// (event.Permission.Scope) and the session projects them, so they hold
// after a restart. A line that cannot be scoped (unknown, writing to a
// file, only assignments) offers no "always"; an "always" answer to it
// counts once. For an edit-kind call inside the cwd an answer covers every
// edit-kind call of the session inside the cwd, whatever the tool ("Always
// allow edits in this session", recorded with event.Permission.Kind and
// handed back in Request.AlwaysKind; an "always reject" of edits rejects
// them everywhere); for one outside the cwd it counts once. For other
// tools an answer covers the tool. An "always
// allow" without a scope for a command-line tool (logs written before
// scopes) is ignored: the user is asked again; an "always reject" without
// a scope still rejects every call of the tool.
//
// # Checker
//
// [Checker.Check] applies the policy and the session's "always" answers
// ([Request.Always]) and, when the answer is ask, asks its [Asker], telling
// it what an "always" answer would cover ([Request.AlwaysCovers]). With no
// asker (no terminal, no editor), ask becomes a rejection whose reason
// tells the user how to allow the call. The answer says who decided (rule,
// mode, session or user) so the caller can log it.
package permission
