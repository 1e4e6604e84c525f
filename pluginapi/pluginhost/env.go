package pluginhost

import (
	"fmt"
	"net/url"
	"strings"
)

// DefaultPassEnv returns the names of the host's environment variables a
// plugin gets by default: what a shell and its tools need to find
// programs, files, the locale, the terminal and the network. A name ending
// in "*" is a prefix. Everything else in the host's environment — API keys,
// tokens, database URLs — never reaches a plugin unless the host names it
// in LaunchConfig.PassEnv.
func DefaultPassEnv() []string {
	return []string{
		"PATH", "HOME", "USER", "LOGNAME", "SHELL",
		"LANG", "LANGUAGE", "LC_*", "TZ",
		"TERM", "COLORTERM", "TMPDIR",
		"XDG_*",
		"SSL_CERT_FILE", "SSL_CERT_DIR",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
		"http_proxy", "https_proxy", "no_proxy", "all_proxy",
		// Where the user's toolchains live, so that the commands a
		// plugin runs (go test, cargo build, mvn, a virtualenv's python)
		// work as in the user's shell. Prefixes are filtered by name
		// (GOAUTH, CARGO_REGISTRIES_X_TOKEN are withheld) and every value
		// by shape, like the rest.
		"GO*", "CGO_*", "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "PKG_CONFIG_PATH",
		"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
		"JAVA_HOME", "MAVEN_HOME", "GRADLE_USER_HOME",
		"VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYTHONPATH", "PYENV_ROOT", "PIPX_HOME",
		"NVM_DIR", "NODE_PATH", "VOLTA_HOME", "BUN_INSTALL", "DENO_DIR",
		"GEM_HOME", "GEM_PATH", "RBENV_ROOT",
		"EDITOR", "VISUAL",
	}
}

// PluginEnv returns the variables of environ (NAME=value lines, as from
// os.Environ) that a plugin may see: those DefaultPassEnv names, and those
// pass names. A name ending in "*" matches a prefix.
//
// Two kinds of default variable are withheld even so: one matched only by
// a prefix (LC_*, XDG_*) whose name looks like a secret ([SecretName]),
// and one whose value is a URL carrying a password (a proxy as
// http://user:pw@proxy:3128) — the names of the latter are returned in
// dropped, for a warning, since a proxy that needs them stops working. A
// variable named in pass is passed as is: the user asked for it.
func PluginEnv(environ, pass []string) (env, dropped []string) {
	defaults := DefaultPassEnv()
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if matchEnv(pass, name) {
			env = append(env, kv)
			continue
		}
		exact, prefix := matchEnvKind(defaults, name)
		if !exact && !prefix {
			continue
		}
		if !exact && SecretName(name) {
			continue
		}
		if urlWithPassword(value) {
			dropped = append(dropped, name)
			continue
		}
		env = append(env, kv)
	}
	return env, dropped
}

// CheckEnvNames checks names for LaunchConfig.PassEnv: each a variable
// name ([A-Za-z_][A-Za-z0-9_]*), optionally ending in "*" for a prefix.
func CheckEnvNames(names []string) error {
	for _, n := range names {
		base := strings.TrimSuffix(n, "*")
		if base == "" || strings.ContainsRune(base, '*') {
			return fmt.Errorf("%q is not an environment variable name (a name like GOFLAGS, or a prefix like GO*)", n)
		}
		for i, r := range base {
			letter := r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z')
			if !letter && (i == 0 || r < '0' || r > '9') {
				return fmt.Errorf("%q is not an environment variable name (a name like GOFLAGS, or a prefix like GO*)", n)
			}
		}
	}
	return nil
}

func matchEnv(patterns []string, name string) bool {
	exact, prefix := matchEnvKind(patterns, name)
	return exact || prefix
}

// matchEnvKind reports whether name is one of patterns, or only matches
// one of their prefixes.
func matchEnvKind(patterns []string, name string) (exact, prefix bool) {
	for _, p := range patterns {
		if base, ok := strings.CutSuffix(p, "*"); ok {
			prefix = prefix || strings.HasPrefix(name, base)
		} else if p == name {
			return true, false
		}
	}
	return false, prefix
}

// SecretName reports whether an environment variable's name looks like it
// holds a credential: it contains TOKEN, SECRET, PASSW, KEY, CREDENTIAL,
// AUTH, COOKIE, _PAT, DSN or PRIVATE (any case).
func SecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "SECRET", "PASSW", "PASSPHRASE", "KEY", "CREDENTIAL", "AUTH", "COOKIE", "_PAT", "DSN", "PRIVATE"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// urlWithPassword reports whether v is a URL whose user info has a
// password, with a scheme (http://user:pw@proxy:3128) or without one
// (user:pw@proxy:3128).
func urlWithPassword(v string) bool {
	v = strings.TrimSpace(v)
	if !strings.Contains(v, "@") || !strings.Contains(v, ":") {
		return false
	}
	if !strings.Contains(v, "://") {
		v = "x://" + v
	}
	u, err := url.Parse(v)
	if err != nil {
		// Unparsable but shaped like scheme://user:pw@host: treat it as one.
		rest := v[strings.Index(v, "://")+3:]
		at := strings.LastIndexByte(rest, '@')
		return at > 0 && strings.Contains(rest[:at], ":")
	}
	if u.User == nil {
		return false
	}
	_, has := u.User.Password()
	return has
}
