package confine

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/harness-dev/harness/host/keeper"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/sandbox"
)

// MCP starts the stdio MCP servers that ask for a sandbox in
// mcp.json (mcpclient.ServerConfig.Sandboxed) under their keeper confined
// to MCPProfile, through the launcher the plugins use (keeper.WrapConfined,
// sandbox.ConfineThread). Where that cannot be had it says why, and the
// server is not started: one that asked for a sandbox never runs without
// one (mcpclient.Options.Confine). The session's own sandbox policy does
// not change it: the key is the server's. getenv gives HOME and
// XDG_RUNTIME_DIR; own are harness's config and state folders.
func MCP(getenv func(string) string, own []string) func(mcpclient.ServerConfig, string) (pluginhost.Supervisor, error) {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	runtimeDir := getenv("XDG_RUNTIME_DIR")
	return func(c mcpclient.ServerConfig, cwd string) (pluginhost.Supervisor, error) {
		switch {
		case !keeper.CanConfine():
			return nil, errors.New("no keeper runs here (not Linux, or a binary whose main does not call keeper.Main)")
		case sandbox.LandlockABI() == 0:
			return nil, errors.New("this kernel has no Landlock")
		}
		p := MCPProfile(c, cwd, home, runtimeDir, own)
		return func(cmd *exec.Cmd) (pluginhost.Supervised, error) { return keeper.WrapConfined(cmd, p, true) }, nil
	}
}

// MCPProfile is the sandbox profile of stdio MCP server c run in folder
// cwd: it reads everything (it runs node, python, npx from anywhere) but
// the credential stores of home, the daemons' sockets, runtimeDir
// ($XDG_RUNTIME_DIR) and own (harness's config and state) — refused by
// Landlock, which grants by existing path, and hidden in the keeper's
// mount namespace where it can make one (as root); it may execute what it
// reads; it writes cwd with "workspace-write" — but the protected entries
// a bash command cannot write there either (.git/hooks, .git/config,
// .mcp.json, …: bound read-only in that mount namespace) — and its
// private temp folder (the keeper's, its TMPDIR) either way; the network
// is the host's with network "on", refused otherwise. Program is left
// for the keeper.
func MCPProfile(c mcpclient.ServerConfig, cwd, home, runtimeDir string, own []string) sandbox.Profile {
	p := sandbox.Profile{Exec: true, Network: c.Network == mcpclient.NetworkOn}
	p.Hide = sandbox.PluginHidden(home, runtimeDir, own).DenyRead
	// "/" but what it hides: every entry of a folder holding a hidden
	// path, one level down at a time.
	p.Read = sandbox.HomeReads("/", p.Hide)
	if c.Sandbox == mcpclient.SandboxWorkspaceWrite && filepath.IsAbs(cwd) {
		p.Write = []string{filepath.Clean(cwd)}
		// its protected entries (.git/hooks, .git/config, .mcp.json, …)
		// as a bash command's: read-only where the keeper makes a mount
		// namespace
		p.ReadOnly = sandbox.Build(sandbox.Setup{Mode: sandbox.WorkspaceWrite, Cwd: cwd}).ReadOnly
	}
	return p
}
