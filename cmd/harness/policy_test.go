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
		"default asks":               {want: permission.ModeAsk},
		"yes allows all":             {args: []string{"--yes"}, want: permission.ModeAllowAll},
		"env allows all":             {env: map[string]string{"HARNESS_PERMISSION": "allow-all"}, want: permission.ModeAllowAll},
		"flag beats env":             {args: []string{"--permission", "ask"}, env: map[string]string{"HARNESS_PERMISSION": "allow-all"}, want: permission.ModeAsk},
		"yes beats ask":              {args: []string{"--permission", "ask", "--yes"}, want: permission.ModeAllowAll},
		"mode flag":                  {args: []string{"--mode", "accept-edits"}, want: permission.ModeAcceptEdits},
		"mode env":                   {env: map[string]string{"HARNESS_MODE": "read-only"}, want: permission.ModeReadOnly},
		"mode env beats the old one": {env: map[string]string{"HARNESS_MODE": "read-only", "HARNESS_PERMISSION": "allow-all"}, want: permission.ModeReadOnly},
		"flag beats mode env":        {args: []string{"--permission", "ask"}, env: map[string]string{"HARNESS_MODE": "read-only"}, want: permission.ModeAsk},
		"last flag wins":             {args: []string{"--mode", "read-only", "--permission", "allow-all", "--mode", "accept-edits"}, want: permission.ModeAcceptEdits},
		"yes beats read-only":        {args: []string{"--mode", "read-only", "--yes"}, want: permission.ModeAllowAll},
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

func TestModeFlagRefusesUnknown(t *testing.T) {
	t.Parallel()
	fs := newFlagSet("t", &strings.Builder{}, "t")
	c := bindConfig(fs, env2(map[string]string{}))
	if err := fs.Parse([]string{"--mode", "yolo"}); err != nil {
		t.Fatal(err)
	}
	if err := c.check(); err == nil || !strings.Contains(err.Error(), "--mode") || !strings.Contains(err.Error(), "accept-edits") {
		t.Errorf("check = %v, want an error naming --mode and the modes", err)
	}
}

func env2(m map[string]string) env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}
