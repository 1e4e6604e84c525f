package permission

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
)

type askerFunc func(ctx context.Context, req Request) (event.Decision, error)

func (f askerFunc) Ask(ctx context.Context, req Request) (event.Decision, error) { return f(ctx, req) }

func TestCheck(t *testing.T) {
	t.Parallel()
	rules := []Rule{
		{Tool: "bash", Prefix: "git status", Action: Allow},
		{Tool: "bash", Prefix: "rm ", Action: Deny},
		{Tool: "bash_kill", Action: Ask},
		{Tool: "bash", Prefix: "rm -rf /tmp/x", Action: Allow}, // shadowed by the deny above
	}
	yes := askerFunc(func(context.Context, Request) (event.Decision, error) { return event.AllowAlways, nil })
	tests := map[string]struct {
		mode       Mode
		asker      Asker
		tool, args string
		want       Verdict
		reasonHas  string
	}{
		"rule allows a prefix":          {mode: ModeAsk, tool: "bash", args: `{"command":"  git status -s"}`, want: Verdict{Decision: event.AllowOnce, Source: "rule"}},
		"rule denies, first match wins": {mode: ModeAllowAll, tool: "bash", args: `{"command":"rm -rf /tmp/x"}`, want: Verdict{Decision: event.RejectOnce, Source: "rule"}, reasonHas: `deny bash "rm "`},
		"ask rule beats allow-all":      {mode: ModeAllowAll, asker: yes, tool: "bash_kill", args: `{}`, want: Verdict{Decision: event.AllowAlways, Source: "user"}},
		"mode allow-all":                {mode: ModeAllowAll, tool: "bash", args: `{"command":"ls"}`, want: Verdict{Decision: event.AllowOnce, Source: "mode"}},
		"mode ask asks":                 {mode: ModeAsk, asker: yes, tool: "bash", args: `{"command":"ls"}`, want: Verdict{Decision: event.AllowAlways, Source: "user"}},
		"nobody to ask":                 {mode: ModeAsk, tool: "bash", args: `{"command":"ls"}`, want: Verdict{Decision: event.RejectOnce, Source: "mode"}, reasonHas: "--yes"},
		"prefix needs a command":        {mode: ModeAsk, tool: "bash", args: `not json`, want: Verdict{Decision: event.RejectOnce, Source: "mode"}, reasonHas: "no one to ask"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := Checker{Policy: Policy{Mode: tc.mode, Rules: rules, File: "perm.json"}, Asker: tc.asker}
			got, err := c.Check(context.Background(), Request{Tool: tc.tool, Args: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			if got.Decision != tc.want.Decision || got.Source != tc.want.Source {
				t.Errorf("Check = %+v, want %+v", got, tc.want)
			}
			if !strings.Contains(got.Reason, tc.reasonHas) {
				t.Errorf("reason %q lacks %q", got.Reason, tc.reasonHas)
			}
		})
	}
}

func TestCheckAskCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := Checker{Policy: Policy{Mode: ModeAsk}, Asker: askerFunc(func(ctx context.Context, _ Request) (event.Decision, error) {
		return "", ctx.Err()
	})}
	if _, err := c.Check(ctx, Request{Tool: "bash"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestLoadRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if rules, err := LoadRules(filepath.Join(dir, "missing.json")); err != nil || rules != nil {
		t.Errorf("missing file: %v, %v", rules, err)
	}
	rules, err := LoadRules(write("ok.json", `{"rules":[{"tool":"bash","prefix":"ls","action":"allow"}]}`))
	if err != nil || len(rules) != 1 || rules[0].Prefix != "ls" {
		t.Errorf("ok file: %v, %v", rules, err)
	}
	for name, text := range map[string]string{
		"bad action":    `{"rules":[{"tool":"bash","action":"maybe"}]}`,
		"no tool":       `{"rules":[{"action":"allow"}]}`,
		"unknown field": `{"rules":[{"tool":"bash","action":"allow","when":"always"}]}`,
		"not json":      `rules: allow`,
	} {
		if _, err := LoadRules(write(strings.ReplaceAll(name, " ", "_")+".json", text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Rules another user could have rewritten are refused, not applied.
	for _, mode := range []os.FileMode{0o666, 0o620, 0o602} {
		p := write("shared.json", `{"rules":[{"tool":"bash","prefix":"rm","action":"allow"}]}`)
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		rules, err := LoadRules(p)
		if rules != nil || err == nil || !strings.HasPrefix(err.Error(), "permission rules "+p+" is writable by group or others") ||
			strings.Contains(err.Error(), `"rm"`) {
			t.Errorf("mode %04o: %v, %v; want a refusal naming the file", mode, rules, err)
		}
	}
}

// TestNoAlwaysFromCaller: a question the caller marks NoAlways (a plugin's
// own question, whose answer holds for that request only) is asked without
// offering "always", and an "always" answer given anyway counts once and
// records no scope.
func TestNoAlwaysFromCaller(t *testing.T) {
	t.Parallel()
	for _, answer := range []event.Decision{event.AllowAlways, event.RejectAlways} {
		var offered bool
		c := Checker{Policy: Policy{Mode: ModeAsk}, Asker: askerFunc(func(_ context.Context, req Request) (event.Decision, error) {
			offered = !req.NoAlways
			return answer, nil
		})}
		v, err := c.Check(t.Context(), Request{Tool: "read", Args: []byte(`{"file_path":"/etc/hosts"}`), NoAlways: true})
		if err != nil {
			t.Fatal(err)
		}
		if offered {
			t.Errorf("%s: the asker was told it may offer always", answer)
		}
		want := event.AllowOnce
		if !answer.Allows() {
			want = event.RejectOnce
		}
		if v.Decision != want || v.Scope != nil {
			t.Errorf("%s: verdict %s scope %q, want %s and no scope", answer, v.Decision, v.Scope, want)
		}
	}
}
