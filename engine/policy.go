package engine

import "github.com/harness-dev/harness/host/permission"

// LoadPolicy returns the permission policy for Config.Policy: mode (""
// is ask) with the rules of file, else of DefaultPermissionsFile (none
// when there is no home to look in). A missing file means no rules; a bad
// one is the error, naming it.
func LoadPolicy(mode permission.Mode, file string, getenv func(string) string) (permission.Policy, error) {
	p := permission.Policy{Mode: mode, File: file}
	if p.Mode == "" {
		p.Mode = permission.ModeAsk
	}
	if p.File == "" {
		if p.File = DefaultPermissionsFile(getenv); p.File == "" {
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
