package session

import (
	"reflect"
	"testing"

	"github.com/harness-dev/harness/host/event"
)

// TestPermissionModeAnywhere: permission/mode may come before the first
// turn, between turns and inside a step; the last one is the session's
// mode, after a reopen too; an empty mode is refused. Kind-wide "always"
// answers are projected by kind.
func TestPermissionModeAnywhere(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "modes")
	if m := s.Mode(); m != "" {
		t.Errorf("Mode() of a new session = %q, want none", m)
	}
	mustAppend(t, s,
		event.PermissionMode{Mode: "ask", By: "host"},
		event.TurnStart{Turn: 1},
		event.UserMessage{Content: event.Text("go")},
		event.StepStart{Turn: 1, Step: 1},
		event.AssistantMessage{Turn: 1, Step: 1, ToolCalls: []event.ToolCallRequest{{ID: "c1", Name: "write"}}},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "write"},
		event.PermissionMode{Mode: "read-only", By: "client"},
		event.Permission{Turn: 1, Step: 1, CallID: "c1", Tool: "write", Decision: event.AllowAlways, Source: "user", Kind: "edit"},
		event.ToolResult{Turn: 1, Step: 1, CallID: "c1", Content: "ok"},
		event.StepEnd{Turn: 1, Step: 1},
		event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted},
	)
	if m := s.Mode(); m != "read-only" {
		t.Errorf("Mode() = %q, want read-only", m)
	}
	mustAppend(t, s, event.PermissionMode{Mode: "accept-edits", By: "client"})
	if _, err := s.Append(event.PermissionMode{By: "client"}); err == nil {
		t.Error("a permission/mode without a mode was accepted")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := open(t, st, "modes")
	defer r.Close()
	if m := r.Mode(); m != "accept-edits" {
		t.Errorf("Mode() after reopen = %q, want accept-edits", m)
	}
	if got := r.AlwaysKind("edit"); len(got) != 1 || got[0].Tool != "write" {
		t.Errorf("AlwaysKind(edit) = %+v, want the answer about write", got)
	}
	if got := r.AlwaysKind("execute"); got != nil {
		t.Errorf("AlwaysKind(execute) = %+v, want none", got)
	}
}

// TestSandboxPolicyAnywhere: sandbox/policy may come before the first turn
// and between turns, like the mode; the last one is the session's, after
// a reopen too; one without a mode or network is refused.
func TestSandboxPolicyAnywhere(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "sandboxes")
	if p := s.Sandbox(); p.Mode != "" || p.Network != "" || p.AddDirs != nil {
		t.Errorf("Sandbox() of a new session = %+v, want none", p)
	}
	mustAppend(t, s,
		event.SandboxPolicy{Mode: "workspace-write", Network: "off", By: "host"},
		event.TurnStart{Turn: 1},
		event.UserMessage{Content: event.Text("go")},
		event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted},
		event.SandboxPolicy{Mode: "read-only", Network: "on", By: "host"},
		event.SandboxPolicy{Mode: "workspace-write", Network: "on", AddDirs: []string{"/srv/a", "/srv/b"},
			DenyRead: []string{"/srv/secret"}, PidsLimit: 64, By: "host"},
	)
	for _, bad := range []event.SandboxPolicy{{Network: "off", By: "host"}, {Mode: "off", By: "host"}} {
		if _, err := s.Append(bad); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := open(t, st, "sandboxes")
	defer r.Close()
	want := event.SandboxPolicy{Mode: "workspace-write", Network: "on", AddDirs: []string{"/srv/a", "/srv/b"},
		DenyRead: []string{"/srv/secret"}, PidsLimit: 64, By: "host"}
	if p := r.Sandbox(); !reflect.DeepEqual(p, want) {
		t.Errorf("Sandbox() after reopen = %+v, want %+v", p, want)
	}
}
