package engine

import (
	"fmt"
	"io"

	"github.com/hashicorp/go-hclog"
)

// NewLogger returns a front end's logger for Config.Logger, named
// harness: it writes to w at level (trace, debug, info, warn, error or
// off), as JSON lines when json is set (under ACP, where a program reads
// stderr).
func NewLogger(w io.Writer, level string, json bool) (hclog.Logger, error) {
	l := hclog.LevelFromString(level)
	if l == hclog.NoLevel {
		return nil, fmt.Errorf("unknown log level %q: use trace, debug, info, warn, error or off", level)
	}
	return hclog.New(&hclog.LoggerOptions{Name: "harness", Level: l, Output: w, JSONFormat: json, Color: hclog.ColorOff}), nil
}
