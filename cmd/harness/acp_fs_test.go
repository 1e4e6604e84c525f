package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestACPEditorFiles runs the fs plugin under an editor with the official
// ACP TypeScript SDK (testdata/acpclient/fsedit.mjs): with the editor's
// file system (an unsaved buffer read, an edit shown as a diff before the
// permission question, rejected then applied through fs/write_text_file)
// and, with --disk, without it (the same turns on disk). Every message is
// validated against the ACP schema.
func TestACPEditorFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	node := nodeClient(t)
	bin, pluginDir := buildHarness(t)
	if _, err := os.Stat(filepath.Join(pluginDir, "fs")); err != nil {
		t.Fatalf("needs the fs plugin (plugins/fs), which go build ./plugins/... did not make: %v", err)
	}
	for _, sc := range []editorScenario{
		{name: "fsedit"},
		{name: "fsedit", args: []string{"--disk"}},
	} {
		t.Run(strings.Join(append([]string{sc.name}, sc.args...), " "), func(t *testing.T) {
			t.Parallel()
			runScenario(t, node, bin, pluginDir, sc)
		})
	}
}
