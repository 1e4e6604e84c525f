package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
)

// funcApprover answers with its func and counts the questions.
type funcApprover struct {
	mu    sync.Mutex
	asked []string
	fn    func(ctx context.Context, req ApprovalRequest) (Approval, error)
}

func (a *funcApprover) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.CallID)
	a.mu.Unlock()
	return a.fn(ctx, req)
}

func guardedTools() *fakeToolbox {
	tb := okTools("sh")
	tb.tools[0].NeedsPermission = true
	return tb
}

// permissionEvents returns the permission events of s, as "callId:decision:source".
func permissionEvents(t *testing.T, evs []event.Event) []string {
	t.Helper()
	var out []string
	for _, e := range evs {
		if e.Type == event.TypePermission {
			p, err := e.Decode()
			if err != nil {
				t.Fatal(err)
			}
			pe := p.(event.Permission)
			out = append(out, pe.CallID+":"+string(pe.Decision)+":"+string(pe.Source))
		}
	}
	return out
}

func TestApproval(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		approve     func(ctx context.Context, req ApprovalRequest) (Approval, error)
		wantCalled  bool
		wantResult  string
		wantPerm    []string
		wantAskedN  int
		secondTurnN int // questions asked in a second turn calling the same tool
	}{
		"allow once asks again next turn": {
			approve: func(context.Context, ApprovalRequest) (Approval, error) {
				return Approval{Decision: event.AllowOnce, Source: "user"}, nil
			},
			wantCalled: true, wantResult: "ok", wantPerm: []string{"c1:allow_once:user"}, wantAskedN: 1, secondTurnN: 2,
		},
		"allow always is handed back to the approver": {
			approve: func(_ context.Context, req ApprovalRequest) (Approval, error) {
				if len(req.Always) == 1 && req.Always[0].Decision == event.AllowAlways && req.Always[0].Scope[0] == "ls" {
					return Approval{Decision: event.AllowAlways, Source: "session"}, nil
				}
				if len(req.Always) != 0 {
					return Approval{}, errors.New("unexpected always answers")
				}
				return Approval{Decision: event.AllowAlways, Source: "user", Scope: []string{"ls"}}, nil
			},
			wantCalled: true, wantResult: "ok", wantPerm: []string{"c1:allow_always:user"}, wantAskedN: 1, secondTurnN: 2,
		},
		"reject once": {
			approve: func(context.Context, ApprovalRequest) (Approval, error) {
				return Approval{Decision: event.RejectOnce, Source: "user"}, nil
			},
			wantResult: "Error: permission denied by user", wantPerm: []string{"c1:reject_once:user"}, wantAskedN: 1, secondTurnN: 2,
		},
		"rule rejects with its reason": {
			approve: func(context.Context, ApprovalRequest) (Approval, error) {
				return Approval{Decision: event.RejectOnce, Source: "rule", Reason: "denied by rule bash rm"}, nil
			},
			wantResult: "Error: denied by rule bash rm", wantPerm: []string{"c1:reject_once:rule"}, wantAskedN: 1, secondTurnN: 2,
		},
		"a failing approver rejects": {
			approve: func(context.Context, ApprovalRequest) (Approval, error) {
				return Approval{}, errors.New("editor went away")
			},
			wantResult: "Error: permission check failed: editor went away", wantPerm: []string{"c1:reject_once:error"}, wantAskedN: 1, secondTurnN: 2,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, s := realSession(t)
			tb := guardedTools()
			ap := &funcApprover{fn: tc.approve}
			model, err := script.Load(strings.NewReader(strings.Join([]string{
				toolLine("", "c1:sh"), `{"text":"done"}`,
				toolLine("", "c2:sh"), `{"text":"done"}`,
			}, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			l := &Loop{Model: model, Tools: tb, Approver: ap}
			if out := l.Run(context.Background(), s, event.Text("one"), nil); out.Reason != event.ReasonCompleted {
				t.Fatalf("turn 1: %+v", out)
			}
			if got := len(tb.called()) == 1; got != tc.wantCalled {
				t.Errorf("tool called = %v, want %v", got, tc.wantCalled)
			}
			msgs := s.Messages()
			if got := msgs[2].Text; got != tc.wantResult {
				t.Errorf("result = %q, want %q", got, tc.wantResult)
			}
			if got := permissionEvents(t, s.Events()); strings.Join(got, " ") != strings.Join(tc.wantPerm, " ") {
				t.Errorf("permission events = %v, want %v", got, tc.wantPerm)
			}
			if len(ap.asked) != tc.wantAskedN {
				t.Errorf("asked %d times, want %d", len(ap.asked), tc.wantAskedN)
			}
			if out := l.Run(context.Background(), s, event.Text("two"), nil); out.Reason != event.ReasonCompleted {
				t.Fatalf("turn 2: %+v", out)
			}
			if len(ap.asked) != tc.secondTurnN {
				t.Errorf("after turn 2: asked %d times, want %d", len(ap.asked), tc.secondTurnN)
			}
		})
	}
}

func TestApprovalCancelled(t *testing.T) {
	t.Parallel()
	_, s := realSession(t)
	tb := guardedTools()
	ctx, cancel := context.WithCancel(context.Background())
	ap := &funcApprover{fn: func(ctx context.Context, _ ApprovalRequest) (Approval, error) {
		cancel() // the user cancels the turn while the question is open
		<-ctx.Done()
		return Approval{}, ctx.Err()
	}}
	model, err := script.Load(strings.NewReader(toolLine("", "c1:sh")))
	if err != nil {
		t.Fatal(err)
	}
	out := (&Loop{Model: model, Tools: tb, Approver: ap}).Run(ctx, s, event.Text("go"), nil)
	if out.Reason != event.ReasonCancelled || out.Err != nil {
		t.Fatalf("outcome = %+v, want cancelled", out)
	}
	if len(tb.called()) != 0 {
		t.Error("the tool ran although its permission request was cancelled")
	}
	if got := permissionEvents(t, s.Events()); len(got) != 0 {
		t.Errorf("a decision was logged for a cancelled request: %v", got)
	}
}

// progressLive records tool progress.
type progressLive struct {
	mu  sync.Mutex
	got []string
}

func (*progressLive) TextDelta(string, string)      {}
func (*progressLive) ReasoningDelta(string, string) {}
func (p *progressLive) ToolProgress(_, callID, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, callID+":"+text)
}

func TestToolProgressReachesLive(t *testing.T) {
	t.Parallel()
	_, s := realSession(t)
	tb := &fakeToolbox{tools: []Tool{mkTool("sh", false)}, call: func(_ context.Context, c Call) Result {
		c.Progress("line 1\n")
		c.Progress("line 2\n")
		return Result{Content: "done"}
	}}
	model, err := script.Load(strings.NewReader(toolLine("", "c1:sh") + "\n" + `{"text":"ok"}`))
	if err != nil {
		t.Fatal(err)
	}
	live := &progressLive{}
	if out := (&Loop{Model: model, Tools: tb}).Run(context.Background(), s, event.Text("go"), live); out.Reason != event.ReasonCompleted {
		t.Fatalf("%+v", out)
	}
	if got := strings.Join(live.got, "|"); got != "c1:line 1\n|c1:line 2\n" {
		t.Errorf("progress = %q", got)
	}
	for _, e := range s.Events() {
		if strings.Contains(string(e.Data), "line 1") {
			t.Errorf("progress was logged: %s", e.Data)
		}
	}
}
