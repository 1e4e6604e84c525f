package permission

import (
	"testing"

	"github.com/harness-dev/harness/host/event"
)

func TestRuleToolPrefix(t *testing.T) {
	p := Policy{Mode: ModeAllowAll, Rules: []Rule{
		{Tool: "mcp__github__*", Action: Deny},
		{Tool: "mcp__docs__search", Action: Ask},
	}}
	cases := []struct {
		tool string
		want Action
	}{
		{"mcp__github__create_issue", Deny},
		{"mcp__github__", Deny},
		{"mcp__githubx__list", Allow},
		{"mcp__docs__search", Ask},
		{"mcp__docs__searchx", Allow},
		{"bash_kill", Allow},
	}
	for _, c := range cases {
		if got := p.decide(c.tool, []byte(`{}`), []event.Permission(nil)).action; got != c.want {
			t.Errorf("%s: %s, want %s", c.tool, got, c.want)
		}
	}
}
