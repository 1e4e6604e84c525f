package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/permission"
)

// checkerApprover is the host's approver: a permission.Checker.
type checkerApprover struct{ c permission.Checker }

func (a checkerApprover) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	v, err := a.c.Check(ctx, permission.Request{SessionID: req.SessionID, CallID: req.CallID, Tool: req.Tool,
		Args: json.RawMessage(req.Args), Title: req.Title, Always: req.Always})
	return Approval{Decision: v.Decision, Source: v.Source, Reason: v.Reason, Scope: v.Scope}, err
}

// answerAsker answers every question with d and counts them.
type answerAsker struct {
	d     event.Decision
	asked []string
}

func (a *answerAsker) Ask(_ context.Context, req permission.Request) (event.Decision, error) {
	a.asked = append(a.asked, permission.Command(req.Args))
	return a.d, nil
}

func bashLine(id, command string) string {
	args, _ := json.Marshal(map[string]string{"command": command})
	return fmt.Sprintf(`{"toolCalls":[{"id":%q,"name":"bash","args":%s}]}`, id, args)
}

// TestAlwaysNeverOverridesDeny: the user answers "always" for git status;
// a later rm that a deny rule forbids is denied — in the same session and
// after it is reopened — and a later line that is not all git status is
// asked about again.
func TestAlwaysNeverOverridesDeny(t *testing.T) {
	t.Parallel()
	st, s := realSession(t)
	tb := okTools("bash")
	tb.tools[0].NeedsPermission = true
	policy := permission.Policy{Mode: permission.ModeAllowAll, File: "perm.json",
		Rules: []permission.Rule{{Tool: "bash", Prefix: "rm ", Action: permission.Deny}, {Tool: "bash", Prefix: "touch", Action: permission.Ask}}}
	asker := &answerAsker{d: event.AllowAlways}
	run := func(s SessionLog, prompt string, lines ...string) {
		t.Helper()
		var sc []string
		for i, l := range lines {
			sc = append(sc, bashLine(fmt.Sprintf("%s%d", prompt, i), l))
		}
		sc = append(sc, `{"text":"done"}`)
		model, err := script.Load(strings.NewReader(strings.Join(sc, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		l := &Loop{Model: model, Tools: tb, Approver: checkerApprover{permission.Checker{Policy: policy, Asker: asker}}}
		if out := l.Run(context.Background(), s, event.Text(prompt), nil); out.Reason != event.ReasonCompleted {
			t.Fatalf("%s: %+v", prompt, out)
		}
	}
	decisions := func(s interface{ Events() []event.Event }) map[string]event.Permission {
		out := map[string]event.Permission{}
		for _, e := range s.Events() {
			if e.Type == event.TypePermission {
				p, err := e.Decode()
				if err != nil {
					t.Fatal(err)
				}
				out[p.(event.Permission).CallID] = p.(event.Permission)
			}
		}
		return out
	}

	// An ask rule makes the loop ask about git status; the user says always.
	policy.Rules = append(policy.Rules, permission.Rule{Tool: "bash", Prefix: "git", Action: permission.Ask})
	run(s, "a", "git status", "git status -s", "rm x", "git status; rm x", "git status && touch y")
	d := decisions(s)
	want := map[string]string{
		"a0": "allow_always:user:git status",
		"a1": "allow_always:session:",
		"a2": "reject_once:rule:",
		"a3": "reject_once:rule:",
		"a4": "allow_always:user:git status|touch y",
	}
	for id, w := range want {
		p := d[id]
		if got := fmt.Sprintf("%s:%s:%s", p.Decision, p.Source, strings.Join(p.Scope, "|")); got != w {
			t.Errorf("%s: %s, want %s", id, got, w)
		}
	}
	if strings.Join(asker.asked, ",") != "git status,git status && touch y" {
		t.Errorf("asked about %q", asker.asked)
	}

	r := reopen(t, st, s)
	asker.asked = nil
	asker.d = event.RejectOnce
	run(r, "b", "rm x", "git status", "touch y", "git status && rm x", "git log")
	d = decisions(r)
	want = map[string]string{
		"b0": "reject_once:rule:",
		"b1": "allow_always:session:",
		"b2": "allow_always:session:",
		"b3": "reject_once:rule:",
		"b4": "reject_once:user:",
	}
	for id, w := range want {
		p := d[id]
		if got := fmt.Sprintf("%s:%s:%s", p.Decision, p.Source, strings.Join(p.Scope, "|")); got != w {
			t.Errorf("after reopening, %s: %s, want %s", id, got, w)
		}
	}
	if strings.Join(asker.asked, ",") != "git log" {
		t.Errorf("after reopening, asked about %q", asker.asked)
	}
	// Calls run: the allowed ones only.
	if got := strings.Join(tb.called(), ","); got != "a0,a1,a4,b1,b2" {
		t.Errorf("calls run: %s, want a0,a1,a4,b1,b2", got)
	}
}
