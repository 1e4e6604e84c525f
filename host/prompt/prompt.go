package prompt

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

//go:embed default.md
var defaultText string

// todoText is the part of the default instructions about todo_write; it is
// included only when that tool is offered.
//
//go:embed todo.md
var todoText string

// TodoTool is the tool the todo instructions are about.
const TodoTool = "todo_write"

// Default returns the built-in instructions, without the environment.
func Default() string { return defaultText + "\n" + todoText }

// MaxProjectBytes caps the AGENTS.md text included in the prompt.
const MaxProjectBytes = 32 << 10

// ProjectFile is the name of the project instructions file looked up in the
// session's cwd.
const ProjectFile = "AGENTS.md"

// Env describes where the agent runs.
type Env struct {
	Cwd  string
	OS   string // e.g. runtime.GOOS
	Date time.Time
	// Tools are the names of the tools offered; [Result.ForTools] renders
	// the same prompt for another list.
	Tools []string
	// Base replaces the default instructions when non-empty
	// (--system-prompt-file).
	Base string
}

// Result is a built prompt and what went into it.
type Result struct {
	// Text is the prompt for Env.Tools.
	Text string
	// Project is the path of the AGENTS.md included, "" if none.
	Project string
	// ProjectTruncated reports that AGENTS.md was cut to MaxProjectBytes.
	ProjectTruncated bool

	env     Env
	project string // the project section, "" for none
}

// Build assembles the system prompt for env. A missing AGENTS.md is not an
// error; an unreadable one is.
func Build(env Env) (Result, error) {
	res := Result{env: env}
	if env.Cwd != "" {
		path := filepath.Join(env.Cwd, ProjectFile)
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return Result{}, fmt.Errorf("read project instructions: %w", err)
		default:
			res.Project = path
			text := string(data)
			if len(text) > MaxProjectBytes {
				text = strings.ToValidUTF8(text[:MaxProjectBytes], "")
				res.ProjectTruncated = true
			}
			var b strings.Builder
			fmt.Fprintf(&b, "\n# Project instructions (%s)\n%s\n", path, strings.TrimRight(text, "\n"))
			if res.ProjectTruncated {
				fmt.Fprintf(&b, "[%s was cut at %d bytes; read the file for the rest]\n", ProjectFile, MaxProjectBytes)
			}
			res.project = b.String()
		}
	}
	res.Text = res.ForTools(env.Tools)
	return res, nil
}

// ForTools returns the prompt of r naming tools as the tools available: the
// prompt of a request whose tool list is tools. It reads nothing.
func (r Result) ForTools(tools []string) string {
	var b strings.Builder
	if r.env.Base != "" {
		b.WriteString(strings.TrimRight(r.env.Base, "\n"))
		b.WriteString("\n")
	} else {
		b.WriteString(strings.TrimRight(defaultText, "\n"))
		b.WriteString("\n")
		if slices.Contains(tools, TodoTool) {
			b.WriteString("\n")
			b.WriteString(strings.TrimRight(todoText, "\n"))
			b.WriteString("\n")
		}
	}
	b.WriteString("\n# Environment\n")
	fmt.Fprintf(&b, "- Working directory: %s\n", r.env.Cwd)
	if r.env.OS != "" {
		fmt.Fprintf(&b, "- OS: %s\n", r.env.OS)
	}
	if !r.env.Date.IsZero() {
		fmt.Fprintf(&b, "- Date: %s\n", r.env.Date.Format("2006-01-02"))
	}
	if len(tools) > 0 {
		fmt.Fprintf(&b, "- Tools: %s\n", strings.Join(tools, ", "))
	} else {
		b.WriteString("- Tools: none are available in this session; answer from what you know and say what you would run.\n")
	}
	b.WriteString(r.project)
	return b.String()
}
