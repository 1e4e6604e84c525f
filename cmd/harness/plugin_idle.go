package main

import "time"

// defaultPluginIdle is --plugin-idle's default: a plugin unused for that
// long is stopped (it starts again on its next call, ~5–15 ms).
const defaultPluginIdle = 5 * time.Minute
