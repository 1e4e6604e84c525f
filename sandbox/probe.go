package sandbox

import (
	"fmt"
	"strings"
)

// Kernel is what this kernel offers a sandbox, as Probe found it.
type Kernel struct {
	// Root: the probing process runs as root (no user namespace needed
	// for the others; RLIMIT_NPROC does not bind it).
	Root bool
	// UserNS: an unprivileged user namespace can be made (unused as root).
	UserNS bool
	// MountNS, NetNS: a mount, a network namespace can be had (as root,
	// or inside a user namespace).
	MountNS, NetNS bool
	// LandlockABI is the Landlock ABI version; 0 without Landlock.
	LandlockABI int
	// Seccomp: seccomp filters can be loaded.
	Seccomp bool
	// PidsCgroup is the folder under which a command's pids cgroup is
	// made; "" when no writable pids cgroup was found.
	PidsCgroup string
	// Errors says why a probe found nothing, by row ("user namespace": …).
	Errors map[string]string
}

// Row is one line of Enforceable: what, whether it is enforced here,
// and how (or why not).
type Row struct {
	What     string
	Enforced bool
	How      string
}

// String is the row as `harness sandbox` prints it.
func (r Row) String() string {
	mark := "enforced"
	if !r.Enforced {
		mark = "NOT enforced"
	}
	return fmt.Sprintf("%-34s %-12s %s", r.What, mark, r.How)
}

// Enforceable says, row by row, what p gets on this kernel. Mounts need
// the mount namespace; so do the protected paths inside the roots.
func (k Kernel) Enforceable(p Policy) []Row {
	if !p.Enabled() {
		return []Row{{What: "sandbox", Enforced: false, How: "off: commands have the user's rights"}}
	}
	var rows []Row
	add := func(what string, ok bool, how, not string) {
		if ok {
			rows = append(rows, Row{what, true, how})
		} else {
			rows = append(rows, Row{what, false, not})
		}
	}
	writes := "writes outside the writable roots"
	if p.Mode == ReadOnly {
		writes = "writes outside the temp folder"
	}
	add(writes, k.LandlockABI > 0, fmt.Sprintf("Landlock ABI %d", k.LandlockABI), "no Landlock in this kernel")
	if p.Mode == WorkspaceWrite {
		add("protected paths inside the roots", k.MountNS,
			"read-only binds in a mount namespace (.git's hooks, config, info; .vscode, .idea, .zed, .mcp.json, the missing ones as empty placeholders while the command runs)",
			"needs a mount namespace: "+k.why("mount namespace")+"; the bash plugin names, in its result, the protected names a command created")
	}
	add("credential stores and harness's files hidden", k.MountNS, "empty read-only tmpfs or /dev/null bound over them",
		"readable: needs a mount namespace: "+k.why("mount namespace"))
	switch {
	case p.Network == NetworkOn:
		rows = append(rows, Row{"network", false, "on: the host's network"})
	case p.Network.IsAllowList() && k.NetNS:
		rows = append(rows, Row{"network allow-list", true, "own network namespace; only " + string(p.Network) +
			" through harness's HTTP/HTTPS proxy (HTTP_PROXY, HTTPS_PROXY on 127.0.0.1)"})
	case p.Network.IsAllowList():
		how := "needs a network namespace (" + k.why("network namespace") + "): no network at all instead"
		if k.Seccomp {
			how += " (seccomp refuses socket(AF_INET, AF_INET6, AF_PACKET))"
		}
		rows = append(rows, Row{"network allow-list", false, how})
	case k.NetNS:
		rows = append(rows, Row{"network off", true, "own network namespace, loopback only"})
	case k.Seccomp:
		rows = append(rows, Row{"network off", true, "seccomp refuses socket(AF_INET, AF_INET6, AF_PACKET); Unix sockets stay" +
			map[bool]string{true: " (abstract ones outside the sandbox refused by Landlock)", false: ""}[k.LandlockABI >= 6]})
	default:
		rows = append(rows, Row{"network off", false, "no network namespace and no seccomp"})
	}
	switch pids := p.Pids(); {
	case k.PidsCgroup != "":
		rows = append(rows, Row{"processes", true, fmt.Sprintf("pids cgroup of %d per command (%s)", pids, k.PidsCgroup)})
	case !k.Root && k.UserNS:
		rows = append(rows, Row{"processes", true, fmt.Sprintf("RLIMIT_NPROC %d in the command's user namespace", pids)})
	case !k.Root:
		rows = append(rows, Row{"processes", true, fmt.Sprintf("RLIMIT_NPROC %d for all of this user's processes", pids)})
	default:
		rows = append(rows, Row{"processes", false, "root and no writable pids cgroup: RLIMIT_NPROC does not bind root"})
	}
	add("escapes (namespaces, mount, ptrace, keyrings, io_uring, bpf)", k.Seccomp, "seccomp filter, no_new_privs", "no seccomp in this kernel")
	return rows
}

// why is the probe's reason for what, or "refused by this kernel".
func (k Kernel) why(what string) string {
	if e := k.Errors[what]; e != "" {
		return e
	}
	return "refused by this kernel"
}

// String is what the kernel offers, one line a feature.
func (k Kernel) String() string {
	yes := map[bool]string{true: "yes", false: "no"}
	var b strings.Builder
	fmt.Fprintf(&b, "running as root:     %s\n", yes[k.Root])
	if !k.Root {
		fmt.Fprintf(&b, "user namespaces:     %s%s\n", yes[k.UserNS], k.note("user namespace"))
	}
	fmt.Fprintf(&b, "mount namespaces:    %s%s\n", yes[k.MountNS], k.note("mount namespace"))
	fmt.Fprintf(&b, "network namespaces:  %s%s\n", yes[k.NetNS], k.note("network namespace"))
	if k.LandlockABI > 0 {
		fmt.Fprintf(&b, "Landlock:            ABI %d\n", k.LandlockABI)
	} else {
		fmt.Fprintf(&b, "Landlock:            no%s\n", k.note("landlock"))
	}
	fmt.Fprintf(&b, "seccomp:             %s%s\n", yes[k.Seccomp], k.note("seccomp"))
	if k.PidsCgroup != "" {
		fmt.Fprintf(&b, "pids cgroup:         %s\n", k.PidsCgroup)
	} else {
		fmt.Fprintf(&b, "pids cgroup:         none%s\n", k.note("pids cgroup"))
	}
	return b.String()
}

func (k Kernel) note(what string) string {
	if e := k.Errors[what]; e != "" {
		return " (" + e + ")"
	}
	return ""
}
