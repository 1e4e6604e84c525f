//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestACPMCPFailures is the editor's view of MCP failures (the official
// ACP TypeScript SDK): a server that exits at start, an mcp.json entry
// refused and an mcp.json that does not parse each make one message the
// client receives, redacted, not logged in the session. See
// testdata/acpclient/mcpfail.mjs.
func TestACPMCPFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	t.Parallel()
	node := nodeClient(t)
	bin, pluginDir := buildHarness(t)
	runScenario(t, node, bin, pluginDir, editorScenario{name: "mcpfail"})
}

// TestMCPRunFailureLine: under harness run, a server of the user's
// mcp.json that exits at start is one line on stderr, with its last
// stderr line and its env value redacted; the turn goes on without it.
func TestMCPRunFailureLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin, pluginDir := buildHarness(t)
	const secret = "run-dying-secret-777"
	cfg := writeMCPConfig(t, map[string]any{"dies": map[string]any{
		"command": "sh", "args": []string{"-c", `echo "dying with $TOKEN" >&2; exit 3`},
		"env": map[string]string{"TOKEN": secret},
	}})
	script := writeScript(t, `{"text":"fine without it"}`)
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", "--provider", "script", "--script", script, "--state-dir", filepath.Join(dir, "state"),
		"--plugin-dir", pluginDir, "--permissions", filepath.Join(dir, "no-rules.json"), "hello")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "XDG_CONFIG_HOME="+cfg)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("harness run: %v\nstderr:\n%s", err, stderr.String())
	}
	var lines []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "MCP server dies") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "MCP server dies (from "+filepath.Join(cfg, "harness", "mcp.json")+") not started") ||
		!strings.Contains(lines[0], "its last stderr: dying with [redacted]") {
		t.Errorf("want one line for the server that exited, got %q\nstderr:\n%s", lines, stderr.String())
	}
	if !strings.Contains(stdout.String(), "fine without it") {
		t.Errorf("the turn did not run:\n%s", stdout.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), secret) {
		t.Errorf("the server's env value reached the terminal")
	}
}
