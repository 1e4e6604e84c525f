package prompt

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

//go:embed default.md
var defaultText string

// Default returns the built-in instructions, without the environment.
func Default() string { return defaultText }

// MaxProjectBytes caps the AGENTS.md text included in the prompt.
const MaxProjectBytes = 32 << 10

// ProjectFile is the name of the project instructions file looked up in the
// session's cwd.
const ProjectFile = "AGENTS.md"

// Env describes where the agent runs.
type Env struct {
	Cwd   string
	OS    string // e.g. runtime.GOOS
	Date  time.Time
	Tools []string // names of the tools available at the start
	// Base replaces the default instructions when non-empty
	// (--system-prompt-file).
	Base string
}

// Result is a built prompt and what went into it.
type Result struct {
	Text string
	// Project is the path of the AGENTS.md included, "" if none.
	Project string
	// ProjectTruncated reports that AGENTS.md was cut to MaxProjectBytes.
	ProjectTruncated bool
}

// Build assembles the system prompt for env. A missing AGENTS.md is not an
// error; an unreadable one is.
func Build(env Env) (Result, error) {
	var b strings.Builder
	base := env.Base
	if base == "" {
		base = defaultText
	}
	b.WriteString(strings.TrimRight(base, "\n"))
	b.WriteString("\n\n# Environment\n")
	fmt.Fprintf(&b, "- Working directory: %s\n", env.Cwd)
	if env.OS != "" {
		fmt.Fprintf(&b, "- OS: %s\n", env.OS)
	}
	if !env.Date.IsZero() {
		fmt.Fprintf(&b, "- Date: %s\n", env.Date.Format("2006-01-02"))
	}
	if len(env.Tools) > 0 {
		fmt.Fprintf(&b, "- Tools: %s\n", strings.Join(env.Tools, ", "))
	} else {
		b.WriteString("- Tools: none are available in this session; answer from what you know and say what you would run.\n")
	}

	res := Result{}
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
			fmt.Fprintf(&b, "\n# Project instructions (%s)\n%s\n", path, strings.TrimRight(text, "\n"))
			if res.ProjectTruncated {
				fmt.Fprintf(&b, "[%s was cut at %d bytes; read the file for the rest]\n", ProjectFile, MaxProjectBytes)
			}
		}
	}
	res.Text = b.String()
	return res, nil
}
