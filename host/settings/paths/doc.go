// Package paths names where harness keeps its files unless told
// otherwise: the state folder ($XDG_STATE_HOME/harness), the config folder
// and the files in it ($XDG_CONFIG_HOME/harness: config.toml,
// permissions.json, mcp.json), the plugin folders (plugins/ next to the
// executable), and the list of harness's own files the permission policy
// protects. It reads the environment only through the getenv it is given
// (and the executable's path); it creates nothing.
package paths
