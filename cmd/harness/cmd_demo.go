package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/harness-dev/harness/host/llm/script"
)

//go:embed demo/demo.jsonl
var demoScript []byte

func cmdDemo(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("demo", std.err, "harness demo [flags]")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	model, err := script.Load(bytes.NewReader(demoScript))
	if err != nil {
		return exitFailed, fmt.Errorf("load the demo script: %w", err)
	}
	c.Provider = "script"
	// The demo's one command is harmless; it runs without asking.
	c.Yes = true
	h, err := newTermApp(c, e, std, model)
	if err != nil {
		return exitFailed, err
	}
	defer h.Close()
	if err := h.StartTools(ctx); err != nil {
		return exitFailed, err
	}
	for _, tool := range []string{"todo_write", "bash", "subagent"} {
		if !h.HasTool(tool) {
			dirs, _ := c.pluginDirs()
			return exitFailed, fmt.Errorf("the demo needs the %s tool, and %s has no plugin offering it: build the plugins with go build -o bin/plugins/ ./plugins/... (next to bin/harness), or pass --plugin-dir",
				tool, strings.Join(dirs, ":"))
		}
	}
	fmt.Fprintln(std.out, "(The demo allows its tool calls without asking: it runs one harmless echo. harness run asks first.)")
	s, err := h.OpenOrCreateSession("", "")
	if err != nil {
		return exitFailed, err
	}
	defer h.CloseSession(s)
	// The user's side of the demo, one turn each.
	prompts := []string{"Show me how you work on a task.", "And where is this conversation stored?"}
	for _, p := range prompts {
		fmt.Fprintf(std.out, "\n> %s\n\n", p)
		if code, err := h.term.Turn(ctx, h.Runtime, s, p); code != exitOK || err != nil {
			return code, err
		}
	}
	path := filepath.Join(h.SessionsDir(), s.ID()+".jsonl")
	fmt.Fprintf(std.out, "\nThe whole session is in %s\nRead it with: jq -c . %s\n", path, path)
	return exitOK, nil
}
