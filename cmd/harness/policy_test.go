package main

import (
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/permission"
)

func TestPolicyFlags(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		env  map[string]string
		want permission.Mode
	}{
		"default asks":   {want: permission.ModeAsk},
		"yes allows all": {args: []string{"--yes"}, want: permission.ModeAllowAll},
		"env allows all": {env: map[string]string{"HARNESS_PERMISSION": "allow-all"}, want: permission.ModeAllowAll},
		"flag beats env": {args: []string{"--permission", "ask"}, env: map[string]string{"HARNESS_PERMISSION": "allow-all"}, want: permission.ModeAsk},
		"yes beats ask":  {args: []string{"--permission", "ask", "--yes"}, want: permission.ModeAllowAll},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"HOME": t.TempDir()}
			for k, v := range tc.env {
				env[k] = v
			}
			lookup := env2(env)
			fs := newFlagSet("t", &strings.Builder{}, "t")
			c := bindConfig(fs, lookup)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if err := c.check(); err != nil {
				t.Fatal(err)
			}
			p, err := c.policy(lookup)
			if err != nil || p.Mode != tc.want {
				t.Errorf("policy = %+v, %v; want mode %s", p, err, tc.want)
			}
		})
	}
}

func env2(m map[string]string) env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}
