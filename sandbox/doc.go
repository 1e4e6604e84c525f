// Package sandbox is the kernel-enforced confinement of what a command
// may touch: a Policy (what may be written, read and reached), Probe (what
// this kernel offers) with Enforceable (what a policy will really get
// here, row by row), and the building blocks a freshly started process
// applies to itself before it execs the command, in this order:
//
//   - Mounts (in a mount namespace of its own): a private /dev/shm; every
//     folder between a writable root and a protected or hidden path beneath
//     it (.git itself) bound over itself, so that it cannot be renamed or
//     removed and remade without the binds; the protected paths inside
//     the writable roots (ReadOnly: .git/hooks, .git/config, .git/info,
//     a .git file, .vscode, .idea, .zed, .mcp.json, harness's files) are bound
//     read-only over themselves where they exist; the DenyRead paths
//     (credential stores, harness's config and state) are hidden under an
//     empty read-only tmpfs (a folder) or /dev/null (a file); a ReadOnly
//     path inside a hidden one is shown again, read-only.
//   - LoopbackUp (in a network namespace of its own): lo is brought up, so
//     that the command has 127.0.0.1 and nothing else.
//   - Restrict, on the calling OS thread only (the caller locks it and
//     forks the command from it; Go's other threads stay as they were):
//     no_new_privs; Landlock (github.com/landlock-lsm/go-landlock, best
//     effort on the kernel's ABI) allowing writes only beneath
//     WritableRoots and TempDir (and to /dev/null, /dev/zero, /dev/full,
//     /dev/tty, /dev/ptmx, /dev/pts, and the private /dev/shm),
//     and, from ABI 6, no abstract Unix socket nor signal outside the
//     sandbox; RLIMIT_NPROC at PidsLimit (it binds a non-root user; root
//     needs the cgroup below); a seccomp filter
//     (github.com/elastic/go-seccomp-bpf) refusing the escapes — unshare,
//     setns, mount, umount2, pivot_root, chroot, ptrace,
//     process_vm_readv/writev, keyctl, add_key, request_key, bpf,
//     perf_event_open, userfaultfd, io_uring_*, open_by_handle_at, module
//     and kexec calls, clone with a namespace flag (clone3 answers ENOSYS,
//     so libc falls back to clone) — and, when the network is off or an
//     allow-list and no network namespace could be had, socket(AF_INET,
//     AF_INET6, AF_PACKET); a second filter refuses every system call of another
//     architecture (the 32-bit ABI would bypass the first).
//   - PidsCgroup, by the parent: a pids cgroup (v2 where delegated and
//     writable, else the v1 pids hierarchy) capped at PidsLimit, that the
//     started process joins; removed once the command is gone.
//
// Landlock cannot exempt a path beneath an allowed one, so the protected
// paths inside the roots need the mount namespace: where none can be had
// (unprivileged user namespaces refused), writes outside the roots and the
// network stay refused, the protected paths inside the roots do not, and
// Enforceable says so. A protected name that does not exist when the
// command starts (.vscode, .idea, .zed, .mcp.json in a writable root)
// cannot be bound as it is: Placeholders (placeholder_linux.go), used by
// the caller before Mounts, makes it an empty placeholder (folder 0700,
// file 0600) without following links, shares it between the caller's
// concurrent commands, and removes it when the last one ends, only while
// it is still that inode, unchanged and empty; its record in a private
// folder lets the next table sweep what a killed process left. .git's
// hooks and info folders, git's own, are created empty when missing (and
// kept). Without a mount namespace no placeholder is made (the bash
// plugin names, in a command's result, the protected names it created).
//
// Network (network.go) is "off", "on", or an allow-list of hosts
// (ParseNetwork reads every spelling: flag, variable, config file;
// Allows matches a host and port against it). An allow-list is enforced
// by the caller: the command runs in a network namespace of its own, as
// for off, and reaches out only through the proxy of package
// sandbox/netproxy, whose Unix socket is Policy.Proxy; without a network
// namespace Restrict refuses inet sockets, as for off, and Enforceable
// says the list is not had.
//
// A plugin's process is confined differently, by a Profile of what it
// declared (pluginapi.Capabilities): ConfineThread, on the thread that
// forks it (host/keeper's), applies no_new_privs; Landlock handling reads,
// writes and execution as an allow-list — SystemReads and Profile.Read
// readable, Profile.Write writable, only Program and its interpreters
// (ELF PT_INTERP, #!, #!/usr/bin/env NAME found on PATH) executable
// unless Exec; RLIMIT_NPROC; root's capabilities but the file ones
// dropped (bounding set too); Restrict's seccomp filters, refusing
// AF_INET, AF_INET6 and AF_PACKET sockets unless Network. Credential
// stores are kept out by listing what is readable (HomeReads lists the
// home folder without them); HideThread, before it and where the caller
// may (root), moves the thread into a mount namespace hiding Profile.Hide
// (PluginHidden: credential stores, daemons' sockets, which Landlock
// before ABI 9 cannot refuse a connect to) and binding Profile.ReadOnly
// (protected entries of a writable folder, Policy.ReadOnly's) read-only
// over themselves. The same Profile confines a stdio MCP server that
// asks for a sandbox (confine.MCPProfile). Without Landlock
// ConfineThread fails: nothing would be confined.
//
// Policy travels as JSON (Encode, Decode): from the host to a plugin to
// the process that applies it. Decode refuses unknown fields, an unknown
// mode or network (the network's JSON is "off", "on" or a list of
// hosts), relative or unclean paths, a proxy socket without an
// allow-list.
package sandbox
