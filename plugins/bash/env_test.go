//go:build unix

package main

import (
	"strings"
	"testing"
)

// TestSecretEnv: variables are hidden by name and by value; ordinary ones
// stay.
func TestSecretEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kv   string
		hide bool
	}{
		{"DATABASE_URL=postgres://u:p@h/db", true},
		{"DATABASE_URL=postgres://localhost/db", false},
		{"REDIS_URL=redis://:hunter2@cache:6379/0", true},
		{"MY_SERVICE_URL=https://admin:S3cr3t!@api.example.com/v1", true},
		{"GH_PAT=abc123", true},
		{"pat=abc123", true},
		{"SENTRY_DSN=https://key@o1.ingest.sentry.io/1", true},
		{"ERROR_REPORTING=https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/1", true},
		{"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T000/B000/XXXX", true},
		{"NOTIFY=https://hooks.slack.com/services/T000/B000/XXXX", true},
		{"ALERTS=https://discord.com/api/webhooks/123/abc", true},
		{"PGCONN=host=db user=app password=hunter2 dbname=x", true},
		{"MSSQL=Server=s;Database=d;User Id=u;Password=p;", true},
		{"TLS=-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", true},
		{"SSH_ID=-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl", true},
		{"OPENAI=sk-proj-abcdefghijklmnop1234", true},
		{"ANTHROPIC=sk-ant-api03-abcdefghijklmnopqrstuv", true},
		{"GITHUB=ghp_abcdefghijklmnopqrstuvwxyz0123456789", true},
		{"GITHUB2=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstu", true},
		{"SLACK=xoxb-1234567890-abcdefghij", true},
		{"AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", true},
		{"AWS_ID=AKIAIOSFODNN7EXAMPLE", true},
		{"GITLAB=glpat-abcdefghijklmnopqrst", true},
		{"STRIPE=sk_live_abcdefghijklmnop", true},
		{"JWT=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", true},
		{"PATH=/usr/local/bin:/usr/bin:/bin", false},
		{"HOME=/home/user", false},
		{"LANG=C.UTF-8", false},
		{"GOPATH=/home/user/go", false},
		{"GOPROXY=https://proxy.golang.org,direct", false},
		{"HOMEPAGE_URL=https://example.com/a?b=c", false},
		{"GIT_REPO=ssh://git@github.com/org/repo.git", false},
		{"HTTP_PROXY=http://proxy.internal:3128", false},
		{"PATHEXT=.COM;.EXE", false},
		{"DISPATCH=1", false},
		{"LS_COLORS=rs=0:di=01;34:ln=01;36:*.tar=01;31", false},
		{"EDITOR=vim", false},
	} {
		got := len(commandEnv([]string{tc.kv})) == len(fixedEnv())
		if got != tc.hide {
			name, _, _ := strings.Cut(tc.kv, "=")
			t.Errorf("%s: hidden %v, want %v", name, got, tc.hide)
		}
	}
}

// FuzzSecretValue: the value check never panics, is stable, and a PEM
// private key or a URL password inside any value is always caught.
func FuzzSecretValue(f *testing.F) {
	for _, s := range []string{"postgres://u:p@h/db", "plain", "https://example.com", "password=x", "sk-", "-----BEGIN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if secretValue(v) != secretValue(v) {
			t.Fatal("unstable")
		}
		if !secretValue(v + " -----BEGIN PRIVATE KEY-----") {
			t.Errorf("a PEM key after %q is not caught", v)
		}
		if !secretValue(v + " https://user:pw@host/") {
			t.Errorf("a URL password after %q is not caught", v)
		}
	})
}
