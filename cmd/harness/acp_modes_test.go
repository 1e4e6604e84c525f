//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestACPModes drives harness's permission modes as ACP session modes
// with the official TypeScript SDK client (testdata/acpclient/modes.mjs),
// every message validated against the ACP schema: read-only refuses an fs
// edit and a bash call without asking and leaves the disk alone;
// set_mode to accept-edits lets the next edit run without a
// request_permission while bash still asks; session/load in a fresh
// process reports the mode that was set.
func TestACPModes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	t.Parallel()
	node := nodeClient(t)
	bin, pluginDir := buildHarness(t)
	sc := editorScenario{name: "modes", needs: []string{"fs", "bash"}}
	for _, p := range sc.needs {
		if _, err := os.Stat(filepath.Join(pluginDir, p)); err != nil {
			t.Fatalf("needs the %s plugin (plugins/%s), which go build ./plugins/... did not make: %v", p, p, err)
		}
	}
	runScenario(t, node, bin, pluginDir, sc)
}

// TestACPAutoMode drives the auto mode as an ACP session mode with the
// official TypeScript SDK client (testdata/acpclient/automode.mjs): it is
// listed with its description; set_mode auto works; sandboxed bash calls
// run without a question; a call with sandbox "off" is asked, its
// justification in the request's title, no "always" offered, and once
// allowed writes outside the project; a harness run with --sandbox off
// answers set_mode auto -32602 saying why.
func TestACPAutoMode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	t.Parallel()
	node := nodeClient(t)
	bin, pluginDir := buildHarness(t)
	runScenario(t, node, bin, pluginDir, editorScenario{name: "automode", needs: []string{"bash"}})
}
