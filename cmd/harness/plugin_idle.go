package main

import (
	"errors"
	"time"
)

// defaultPluginIdle is --plugin-idle's default: a plugin unused for that
// long is stopped (it starts again on its next call, ~5–15 ms).
const defaultPluginIdle = 5 * time.Minute

// envDuration returns the duration in the environment variable name, def
// when it is unset, and -1 (refused by checkPluginIdle) when it does not
// parse.
func envDuration(e env, name string, def time.Duration) time.Duration {
	v := e.get(name)
	if v == "" {
		return def
	}
	if v == "0" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return -1
	}
	return d
}

// checkPluginIdle refuses a negative or unparsable --plugin-idle.
func checkPluginIdle(d time.Duration) error {
	if d < 0 {
		return errors.New("--plugin-idle (HARNESS_PLUGIN_IDLE) must be a duration such as 5m, or 0 for never")
	}
	return nil
}
