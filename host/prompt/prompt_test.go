package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBuild(t *testing.T) {
	t.Parallel()
	date := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		agents    string // AGENTS.md content; "" = no file
		base      string
		tools     []string
		want      []string
		wantNot   []string
		truncated bool
	}{
		"default without project file": {
			tools:   []string{"todo_write", "bash"},
			want:    []string{"You are harness", "todo_write", "Working directory:", "Date: 2026-11-29", "Tools: todo_write, bash"},
			wantNot: []string{"Project instructions"},
		},
		"project file appended": {
			agents: "Run task test before committing.\n",
			want:   []string{"You are harness", "# Project instructions", "Run task test before committing."},
		},
		"base replaces default": {
			base:    "You are a test agent.",
			want:    []string{"You are a test agent.", "Tools: none are available"},
			wantNot: []string{"You are harness"},
		},
		"oversized project file is cut and says so": {
			agents:    strings.Repeat("x", MaxProjectBytes+100),
			want:      []string{"was cut at 32768 bytes"},
			truncated: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.agents != "" {
				if err := os.WriteFile(filepath.Join(dir, ProjectFile), []byte(tc.agents), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Build(Env{Cwd: dir, OS: "linux", Date: date, Tools: tc.tools, Base: tc.base})
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("prompt lacks %q:\n%s", w, res.Text)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(res.Text, w) {
					t.Errorf("prompt has %q", w)
				}
			}
			if res.ProjectTruncated != tc.truncated {
				t.Errorf("ProjectTruncated = %v, want %v", res.ProjectTruncated, tc.truncated)
			}
			if (tc.agents != "") != (res.Project != "") {
				t.Errorf("Project = %q with agents file %v", res.Project, tc.agents != "")
			}
		})
	}
}

func TestBuildUnreadableProjectFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A directory named AGENTS.md cannot be read as a file.
	if err := os.Mkdir(filepath.Join(dir, ProjectFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(Env{Cwd: dir}); err == nil {
		t.Fatal("Build succeeded with an unreadable AGENTS.md")
	}
}

// TestForTools: the same prompt rendered for another tool list names
// exactly those tools, keeps the project instructions without reading them
// again, and carries the todo rules only when todo_write is offered.
func TestForTools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ProjectFile), []byte("Use tabs.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Build(Env{Cwd: dir, Tools: []string{"bash"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, ProjectFile)); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		tools   []string
		want    []string
		wantNot []string
	}{
		"added":     {tools: []string{"bash", "todo_write"}, want: []string{"- Tools: bash, todo_write\n", "# The todo list (todo_write)", "Use tabs."}},
		"withdrawn": {tools: []string{"bash"}, want: []string{"- Tools: bash\n", "Use tabs."}, wantNot: []string{"todo_write"}},
		"none":      {want: []string{"Tools: none are available", "Use tabs."}, wantNot: []string{"todo_write"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := res.ForTools(tc.tools)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("prompt lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("prompt has %q:\n%s", w, got)
				}
			}
		})
	}
	if res.Text != res.ForTools([]string{"bash"}) {
		t.Error("Text differs from ForTools(Env.Tools)")
	}
}
