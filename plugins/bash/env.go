//go:build unix

package main

import "strings"

// commandEnv is the environment of the commands the plugin runs: environ
// (the plugin's, which is the host's) without secrets and internals, plus
// the fixed variables of fixedEnv.
func commandEnv(environ []string) []string {
	fixed := fixedEnv()
	out := make([]string, 0, len(environ)+len(fixed))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || hidden(name) || setBy(fixed, name) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, fixed...)
}

// fixedEnv is set for every command: no colours, no pagers, no prompts,
// no editors. stdin is /dev/null and there is no terminal, so a prompt or
// an editor would fail anyway; these make the tools not try (git rebase
// and git merge keep their default messages and todo lists).
func fixedEnv() []string {
	return []string{
		"NO_COLOR=1",
		"TERM=dumb",
		"PAGER=cat",
		"GIT_PAGER=cat",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_EDITOR=true",
		"GIT_SEQUENCE_EDITOR=true",
	}
}

// hidden reports whether the variable name must not reach commands: the
// host's and go-plugin's own variables (HARNESS_*, among them the magic
// cookie HARNESS_PLUGIN_MAGIC_COOKIE, and PLUGIN_*), and secrets, whose
// names contain KEY, SECRET, TOKEN, PASSWORD, PASSWD or CREDENTIAL in any
// case (HARNESS_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD,
// GOOGLE_APPLICATION_CREDENTIALS).
func hidden(name string) bool {
	upper := strings.ToUpper(name)
	if strings.HasPrefix(upper, "HARNESS_") || strings.HasPrefix(upper, "PLUGIN_") {
		return true
	}
	for _, w := range []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"} {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

// setBy reports whether env sets the variable name.
func setBy(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}
