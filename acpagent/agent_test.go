package acpagent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/prompt"
)

// TestACPNewSessionFailureLeavesNoFile: a session/new that fails — a cwd
// that is missing or not a directory, an AGENTS.md that cannot be read,
// plugins that failed to start — leaves no session file behind; one that
// succeeds leaves exactly one.
func TestACPNewSessionFailureLeavesNoFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	badAgents := filepath.Join(root, "badagents")
	if err := os.MkdirAll(filepath.Join(badAgents, prompt.ProjectFile), 0o700); err != nil { // a dir: unreadable as a file
		t.Fatal(err)
	}
	tests := map[string]struct {
		cwd      string
		toolsErr error
		invalid  bool // answered as bad params
	}{
		"missing cwd":        {cwd: filepath.Join(root, "missing"), invalid: true},
		"cwd is a file":      {cwd: file, invalid: true},
		"unreadable project": {cwd: badAgents},
		"plugins failed":     {cwd: root, toolsErr: errors.New("start plugins: boom")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ah := newAgent(t, tc.toolsErr)
			s, err := ah.NewSession(context.Background(), tc.cwd)
			if err == nil {
				s.Close()
				t.Fatal("NewSession succeeded")
			}
			if errors.Is(err, acpbridge.ErrInvalidCwd) != tc.invalid {
				t.Errorf("err = %v; ErrInvalidCwd %v, want %v", err, !tc.invalid, tc.invalid)
			}
			if files := sessionFiles(t, ah.h.SessionsDir()); len(files) != 0 {
				t.Errorf("a failed session/new left %v", files)
			}
		})
	}
	ah := newAgent(t, nil)
	s, err := ah.NewSession(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if files := sessionFiles(t, ah.h.SessionsDir()); len(files) != 1 || !strings.Contains(files[0], s.ID()) {
		t.Errorf("session files %v, want the one of %s", files, s.ID())
	}
}

// newAgent is the Agent of a runtime without plugins whose plugin start
// ended with toolsErr.
func newAgent(t *testing.T, toolsErr error) *Agent {
	t.Helper()
	model, err := script.Load(strings.NewReader(`{"text":"unused"}`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := engine.New(engine.Config{StateDir: t.TempDir(), PluginDirs: []string{t.TempDir()}, Model: model, ModelName: "script", MaxSteps: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	a := New(rt, hclog.NewNullLogger())
	a.toolsErr = toolsErr
	close(a.toolsReady)
	return a
}

func sessionFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
