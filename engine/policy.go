package engine

import (
	"cmp"
	"os"

	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/settings/paths"
)

// LoadPolicy returns the permission policy for Config.Policy: mode (""
// is ask) with the rules of file, else of paths.PermissionsFile (none
// when there is no home to look in). A missing file means no rules; a bad
// one is the error, naming it.
func LoadPolicy(mode permission.Mode, file string, getenv func(string) string) (permission.Policy, error) {
	p := permission.Policy{Mode: mode, File: file}
	if p.Mode == "" {
		p.Mode = permission.ModeAsk
	}
	if p.File == "" {
		if p.File = paths.PermissionsFile(getenv); p.File == "" {
			return p, nil
		}
	}
	rules, err := permission.LoadRules(p.File)
	if err != nil {
		return p, err
	}
	p.Rules = rules
	return p, nil
}

// protectedPaths are harness's own files and folders of cfg, for
// permission.Policy.Protected (paths.Protected).
func protectedPaths(cfg Config) []string {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := cmp.Or(cfg.ConfigDir, paths.ConfigDir(getenv))
	rules := cmp.Or(cfg.Policy.File, paths.PermissionsFile(getenv))
	return paths.Protected([]string{dir, cfg.ConfigFile, rules, cfg.MCPUserFile, cfg.StateDir}, cfg.PluginDirs)
}
