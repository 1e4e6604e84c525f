package confine

import (
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/sandbox"
)

// Call is the sandbox a call of tool t with arguments args runs under in
// a session of setting sb whose cwd is cwd, for its tool/call and, the
// same value, the call itself (pluginapi.CallRequest.Sandbox): set for
// the tools of kind execute of a plugin with the Sandboxes capability (the
// bash plugin's bash, which runs each command in it, and kill_shell, which
// stops one started there), nil for every other tool — a plugin that does
// not confine its commands is not run in this sandbox, so neither the kind
// nor a plugin's name ("bash") says it; only a built-in or a plugin the
// user trusted is started with Sandboxes. The roots are sandbox.Build's
// writable roots for cwd and the session's added folders (with the git
// folders of their repositories), their links resolved (the plugin refuses
// a root that no longer resolves to itself); the private temp folder the
// plugin makes is not among them. A bash call that escalates (see
// Escalates) runs with sandbox off, and that is what it records and sends,
// once allowed: the plugin runs a command unsandboxed only when the host
// says so.
func Call(sb Setting, t tool.Tool, cwd, args string) *event.CallSandbox {
	if t.Plugin == nil || !t.Sandboxes || t.Kind != "execute" {
		return nil
	}
	sb = sb.WithDefaults()
	if sb.Mode == sandbox.Off {
		return &event.CallSandbox{Mode: string(sb.Mode), Network: string(sb.Network)} // nothing else applies
	}
	if v, _ := sandboxArg(args); t.Spec.Name == bashTool && v == string(sandbox.Off) {
		return &event.CallSandbox{Mode: string(sandbox.Off), Network: string(sandbox.NetworkOn)}
	}
	p := sandbox.Build(sandbox.Setup{Mode: sb.Mode, Network: sb.Network, Cwd: cwd, AddDirs: sb.AddDirs})
	// With their links resolved, as the plugin checks them: one that
	// resolves elsewhere when the command starts was swapped for a link.
	var roots []string
	for _, r := range p.WritableRoots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		if !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	return &event.CallSandbox{Mode: string(sb.Mode), Network: string(sb.Network), Roots: roots,
		DenyRead: sb.DenyRead, PidsLimit: sb.PidsLimit}
}

// PluginSandbox is a call's sandbox as pluginapi sends it; nil for nil.
func PluginSandbox(s *event.CallSandbox) *pluginapi.CallSandbox {
	if s == nil {
		return nil
	}
	return &pluginapi.CallSandbox{Mode: s.Mode, Network: s.Network, WritableRoots: s.Roots,
		DenyRead: s.DenyRead, PidsLimit: s.PidsLimit}
}

// bashTool is the name of the bash plugin's tool that runs a command.
const bashTool = "bash"

// sandboxArg is the bash tool's "sandbox" argument in args, read as the
// plugin reads it (encoding/json into a string field: case-insensitive
// names, the last of repeated names); ok is false when args do not
// decode so.
func sandboxArg(args string) (value string, ok bool) {
	var a struct {
		Sandbox string `json:"sandbox"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "", false
	}
	return a.Sandbox, true
}

// Escalates reports whether the bash tool's arguments args ask to run the
// command outside the sandbox, on the safe side: arguments that do not
// decode, or any "sandbox" value at all, count as asking — then the user
// is asked, and the plugin refuses what it cannot read. callSandbox
// Call records sandbox off only for the value the plugin runs so ("off").
func Escalates(args string) bool {
	v, ok := sandboxArg(args)
	return !ok || v != ""
}

// Justification is the bash tool's "justification" argument, read as
// the plugin reads it; "" when there is none.
func Justification(args string) string {
	var a struct {
		Justification string `json:"justification"`
	}
	_ = json.Unmarshal([]byte(args), &a)
	return a.Justification
}
