//go:build unix

package main

import (
	"regexp"
	"strings"
)

// commandEnv is the environment of the commands the plugin runs: environ
// (the plugin's, which is the host's) without secrets and internals, plus
// the fixed variables of fixedEnv.
func commandEnv(environ []string) []string {
	fixed := fixedEnv()
	out := make([]string, 0, len(environ)+len(fixed))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || hidden(name) || secretValue(value) || setBy(fixed, name) {
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
// names contain KEY, SECRET, TOKEN, PASSWORD, PASSWD, CREDENTIAL or
// WEBHOOK, or end in _PAT or _DSN (or are PAT or DSN), in any case
// (HARNESS_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD,
// GOOGLE_APPLICATION_CREDENTIALS, GH_PAT, SENTRY_DSN, SLACK_WEBHOOK_URL).
func hidden(name string) bool {
	upper := strings.ToUpper(name)
	if strings.HasPrefix(upper, "HARNESS_") || strings.HasPrefix(upper, "PLUGIN_") {
		return true
	}
	for _, w := range []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "WEBHOOK"} {
		if strings.Contains(upper, w) {
			return true
		}
	}
	for _, s := range []string{"PAT", "DSN"} {
		if upper == s || strings.HasSuffix(upper, "_"+s) {
			return true
		}
	}
	return false
}

// secretPatterns match values that look like credentials, whatever the
// variable's name. They are compiled once and never change.
var secretPatterns = []*regexp.Regexp{
	// A URL with a password: postgres://user:pass@host/db.
	regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s:]*:[^/?#@\s]+@`),
	// A URL whose user part is a long key (Sentry DSNs, some APIs).
	regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[A-Za-z0-9_-]{20,}@`),
	// A DSN or connection string with a password: "host=h password=x",
	// "Server=s;Password=x".
	regexp.MustCompile(`(?i)(^|[\s;&?])(password|passwd|pwd)\s*=`),
	// Webhook URLs: Slack, Discord, Microsoft Teams, Zapier, Mattermost-style.
	regexp.MustCompile(`(?i)hooks\.slack\.com/|discord(app)?\.com/api/webhooks/|webhook\.office\.com/|outlook\.office(365)?\.com/webhook|hooks\.zapier\.com/|/hooks/[A-Za-z0-9]{20,}`),
	// A PEM private key (RSA, EC, OPENSSH, ENCRYPTED, plain PKCS#8).
	regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY`),
	// Well-known token prefixes: OpenAI and Anthropic (sk-), Stripe,
	// GitHub, Slack, AWS access key ids, GitLab, npm, PyPI, Hugging Face,
	// Google API keys and OAuth tokens, DigitalOcean, Shopify, SendGrid,
	// Square, JWTs.
	regexp.MustCompile(`(^|[^A-Za-z0-9])(` +
		`sk-[A-Za-z0-9_-]{16,}|(sk|rk)_(live|test)_[A-Za-z0-9]{10,}|` +
		`(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|` +
		`xox[abprs]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}|` +
		`(AKIA|ASIA)[A-Z0-9]{16}|` +
		`(glpat|glptt|gldt|glrt)-[A-Za-z0-9_-]{20,}|` +
		`npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{30,}|` +
		`AIza[A-Za-z0-9_-]{35}|ya29\.[A-Za-z0-9_-]{20,}|` +
		`dop_v1_[a-f0-9]{64}|shp(at|ss|ca|pa)_[a-fA-F0-9]{32}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|` +
		`sq0(atp|csp)-[A-Za-z0-9_-]{20,}|` +
		`eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})`),
}

// secretValue reports whether a variable's value looks like a
// credential: a URL with a password or a key as its user, a connection
// string with a password, a webhook URL, a PEM private key, or a token
// with a well-known prefix (sk-, ghp_, github_pat_, xoxb-, AKIA…, glpat-,
// …).
func secretValue(v string) bool {
	if len(v) < 8 {
		return false
	}
	for _, re := range secretPatterns {
		if re.MatchString(v) {
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
