package paths

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness-dev/harness/host/pluginlock"
)

// StateDir is where harness keeps its state unless told otherwise:
// $XDG_STATE_HOME/harness, else ~/.local/state/harness. getenv looks up
// the environment.
func StateDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "harness"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the state folder: no HOME; set --state-dir or HARNESS_STATE_DIR")
		}
		home = h
	}
	return filepath.Join(home, ".local", "state", "harness"), nil
}

// ConfigFile is the file name in harness's config folder:
// $XDG_CONFIG_HOME/harness/NAME (an absolute XDG_CONFIG_HOME only), else
// ~/.config/harness/NAME; "" when there is no home to look in. The config
// file (config.toml), the permission rules (permissions.json) and the
// user's MCP servers (mcp.json) live there.
func ConfigFile(getenv func(string) string, name string) string {
	dir := ConfigDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

// ConfigDir is harness's config folder: $XDG_CONFIG_HOME/harness
// (an absolute XDG_CONFIG_HOME only), else ~/.config/harness; "" when
// there is no home to look in.
func ConfigDir(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "harness")
}

// Protected are harness's own files and folders, for
// permission.Policy.Protected: files (the config folder and file, the
// permission rules, the user's mcp.json, the state folder) and the plugin
// folders with their lock files, made absolute; "" entries are skipped.
func Protected(files, pluginDirs []string) []string {
	paths := slices.Clone(files)
	for _, d := range pluginDirs {
		paths = append(paths, d, strings.TrimSuffix(d, string(filepath.Separator))+pluginlock.Suffix)
	}
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// PermissionsFile is the permission rules file unless told
// otherwise: ConfigFile's permissions.json.
func PermissionsFile(getenv func(string) string) string {
	return ConfigFile(getenv, "permissions.json")
}

// PluginDirs returns the plugin folders of list, a list of paths
// separated by os.PathListSeparator, made absolute; an empty list means
// plugins/ next to the running executable (symlinks resolved).
func PluginDirs(list string) ([]string, error) {
	if list != "" {
		var dirs []string
		for _, d := range strings.Split(list, string(os.PathListSeparator)) {
			if d == "" {
				continue
			}
			abs, err := filepath.Abs(d)
			if err != nil {
				return nil, fmt.Errorf("resolve plugin dir %s: %w", d, err)
			}
			dirs = append(dirs, abs)
		}
		return dirs, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the harness executable: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return []string{filepath.Join(filepath.Dir(exe), "plugins")}, nil
}
