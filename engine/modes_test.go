//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
)

// askFunc is a permission.Asker.
type askFunc func(ctx context.Context, req permission.Request) (event.Decision, error)

func (f askFunc) Ask(ctx context.Context, req permission.Request) (event.Decision, error) {
	return f(ctx, req)
}

type quiet struct{}

func (quiet) TextDelta(_, _ string)      {}
func (quiet) ReasoningDelta(_, _ string) {}

// TestModeSwitchMidTurn, with the real fs and bash plugins: a session is
// created with the configured mode, logged; a switch to accept-edits made
// while the user is being asked about an edit applies to the calls of the
// same step not yet decided (a write runs unasked, bash still asks). Back
// in ask mode, "always allow edits in this session" given for an edit
// covers a write later in the step, and it is logged with its kind.
func TestModeSwitchMidTurn(t *testing.T) {
	t.Parallel()
	cwd, state := t.TempDir(), t.TempDir()
	notes := filepath.Join(cwd, "notes.txt")
	if err := os.WriteFile(notes, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(id, name string, args map[string]string) string {
		b, _ := json.Marshal(args)
		return fmt.Sprintf(`{"id":%q,"name":%q,"args":%s}`, id, name, b)
	}
	edit := map[string]string{"file_path": "notes.txt", "old_string": "two", "new_string": "TWO"}
	model, err := script.Load(strings.NewReader(strings.Join([]string{
		fmt.Sprintf(`{"toolCalls":[%s]}`, call("read", "read", map[string]string{"file_path": "notes.txt"})),
		fmt.Sprintf(`{"toolCalls":[%s,%s,%s]}`, call("edit1", "edit", edit),
			call("write1", "write", map[string]string{"file_path": "a.txt", "content": "a\n"}),
			call("bash1", "bash", map[string]string{"command": "touch made-by-bash", "description": "make a file"})),
		`{"text":"first done"}`,
		fmt.Sprintf(`{"toolCalls":[%s,%s]}`, call("edit2", "edit", edit),
			call("write2", "write", map[string]string{"file_path": "b.txt", "content": "b\n"})),
		`{"text":"second done"}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{pluginDir}, Model: model, ModelName: "script",
		MaxSteps: 10, Policy: permission.Policy{Mode: permission.ModeAsk}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	ctx := context.Background()
	if err := rt.StartTools(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := rt.CreateSession(cwd)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.CloseSession(s)
	if s.Mode() != "ask" || rt.SessionMode(s) != permission.ModeAsk {
		t.Fatalf("a new session's mode is %q, want ask logged", s.Mode())
	}

	var mu sync.Mutex
	var asked []string
	ask := func(answer func(req permission.Request) event.Decision) askFunc {
		return func(_ context.Context, req permission.Request) (event.Decision, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req.CallID+": "+req.AlwaysCovers())
			return answer(req), nil
		}
	}
	out := rt.Run(ctx, s, nil, event.Text("first"), quiet{}, ask(func(req permission.Request) event.Decision {
		if req.CallID == "edit1" {
			if err := rt.SetSessionMode(s, permission.ModeAcceptEdits, event.ByClient); err != nil {
				t.Error(err)
			}
		}
		return event.RejectOnce
	}))
	if out.Err != nil || out.Reason != event.ReasonCompleted {
		t.Fatalf("first turn: %v %v", out.Reason, out.Err)
	}
	if got, want := strings.Join(asked, "; "), "edit1: edits in this session; bash1: `touch made-by-bash …`"; got != want {
		t.Errorf("asked about %s, want %s", got, want)
	}
	if b, _ := os.ReadFile(notes); string(b) != "one\ntwo\n" {
		t.Errorf("the rejected edit changed the file: %q", b)
	}
	if _, err := os.Stat(filepath.Join(cwd, "a.txt")); err != nil {
		t.Errorf("the write after the switch to accept-edits did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cwd, "made-by-bash")); err == nil {
		t.Error("the rejected bash call ran")
	}

	if err := rt.SetSessionMode(s, permission.ModeAsk, event.ByClient); err != nil {
		t.Fatal(err)
	}
	asked = nil
	out = rt.Run(ctx, s, nil, event.Text("second"), quiet{}, ask(func(permission.Request) event.Decision { return event.AllowAlways }))
	if out.Err != nil || out.Reason != event.ReasonCompleted {
		t.Fatalf("second turn: %v %v", out.Reason, out.Err)
	}
	if got, want := strings.Join(asked, "; "), "edit2: edits in this session"; got != want {
		t.Errorf("asked about %s, want %s", got, want)
	}
	if b, _ := os.ReadFile(notes); string(b) != "one\nTWO\n" {
		t.Errorf("the allowed edit: file %q", b)
	}
	if _, err := os.Stat(filepath.Join(cwd, "b.txt")); err != nil {
		t.Errorf("the write covered by \"always allow edits\" did not run: %v", err)
	}

	var modes, decisions []string
	for _, e := range s.Events() {
		p, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch p := p.(type) {
		case event.PermissionMode:
			modes = append(modes, p.Mode+" by "+string(p.By))
		case event.Permission:
			decisions = append(decisions, fmt.Sprintf("%s %s %s %s", p.CallID, p.Decision, p.Source, p.Kind))
		}
	}
	if got, want := strings.Join(modes, ", "), "ask by host, accept-edits by client, ask by client"; got != want {
		t.Errorf("modes logged: %s, want %s", got, want)
	}
	want := []string{"edit1 reject_once user ", "write1 allow_once mode ", "bash1 reject_once user ",
		"edit2 allow_always user edit", "write2 allow_always session "}
	if got := strings.Join(decisions, "; "); got != strings.Join(want, "; ") {
		t.Errorf("decisions:\n got %s\nwant %s", got, strings.Join(want, "; "))
	}

	// Reopened, the session keeps its mode and its answer about edits.
	if err := rt.CloseSession(s); err != nil {
		t.Fatal(err)
	}
	r, err := (&session.Store{Dir: rt.SessionsDir()}).Open(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Mode() != "ask" || len(r.AlwaysKind("edit")) != 1 {
		t.Errorf("reopened: mode %q, edit answers %v", r.Mode(), r.AlwaysKind("edit"))
	}
}

// TestAcceptEditsOutsideAsksTwice, with the real fs plugin: in
// accept-edits a write outside the cwd is asked about by the host, and
// the plugin's own question ("outside the project") is asked too, with no
// "always" — accept-edits answers neither. In allow-all neither is asked.
func TestAcceptEditsOutsideAsksTwice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode  permission.Mode
		asked int
	}{{permission.ModeAcceptEdits, 2}, {permission.ModeAllowAll, 0}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			cwd, outside, state := t.TempDir(), t.TempDir(), t.TempDir()
			target := filepath.Join(outside, "new.txt")
			args, _ := json.Marshal(map[string]string{"file_path": target, "content": "x\n"})
			model, err := script.Load(strings.NewReader(fmt.Sprintf(`{"toolCalls":[{"id":"w","name":"write","args":%s}]}`, args) + "\n" + `{"text":"done"}`))
			if err != nil {
				t.Fatal(err)
			}
			rt, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{pluginDir}, Model: model, ModelName: "script",
				MaxSteps: 5, Policy: permission.Policy{Mode: tc.mode}})
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			ctx := context.Background()
			if err := rt.StartTools(ctx); err != nil {
				t.Fatal(err)
			}
			s, err := rt.CreateSession(cwd)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.CloseSession(s)
			var mu sync.Mutex
			var asked []permission.Request
			out := rt.Run(ctx, s, nil, event.Text("go"), quiet{}, askFunc(func(_ context.Context, req permission.Request) (event.Decision, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, req)
				return event.AllowOnce, nil
			}))
			if out.Err != nil || out.Reason != event.ReasonCompleted {
				t.Fatalf("turn: %v %v", out.Reason, out.Err)
			}
			if len(asked) != tc.asked {
				t.Fatalf("asked %d times (%+v), want %d", len(asked), asked, tc.asked)
			}
			if tc.asked == 2 {
				if a := asked[0].AlwaysCovers(); a != "" {
					t.Errorf("the host's question about an edit outside the cwd offers always for %q", a)
				}
				if a := asked[1].AlwaysCovers(); a != "" || !strings.Contains(asked[1].Title, "outside the project") {
					t.Errorf("the plugin's question: title %q, always %q", asked[1].Title, a)
				}
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("the allowed write did not happen: %v", err)
			}
		})
	}
}

// TestAcceptEditsProtected, with the real fs plugin: in accept-edits an
// edit of a normal file in the cwd runs unasked, but an edit of
// .git/config and a write to harness's config folder are asked, saying
// the path is protected and offering no "always"; an "always" answer
// counts once, so the next turn asks again. In allow-all they run.
func TestAcceptEditsProtected(t *testing.T) {
	t.Parallel()
	for _, mode := range []permission.Mode{permission.ModeAcceptEdits, permission.ModeAllowAll} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			cwd, state, cfgDir := t.TempDir(), t.TempDir(), t.TempDir()
			for name, text := range map[string]string{"notes.txt": "one\n", ".git/config": "[core]\n"} {
				p := filepath.Join(cwd, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rules := filepath.Join(cfgDir, "permissions.json")
			call := func(id, name string, args map[string]string) string {
				b, _ := json.Marshal(args)
				return fmt.Sprintf(`{"id":%q,"name":%q,"args":%s}`, id, name, b)
			}
			gitEdit := map[string]string{"file_path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\thooksPath = /tmp/evil"}
			model, err := script.Load(strings.NewReader(strings.Join([]string{
				fmt.Sprintf(`{"toolCalls":[%s,%s]}`, // the fs plugin edits only files read
					call("r1", "read", map[string]string{"file_path": "notes.txt"}), call("r2", "read", map[string]string{"file_path": ".git/config"})),
				fmt.Sprintf(`{"toolCalls":[%s,%s,%s]}`,
					call("notes", "edit", map[string]string{"file_path": "notes.txt", "old_string": "one", "new_string": "ONE"}),
					call("git", "edit", gitEdit),
					call("rules", "write", map[string]string{"file_path": rules, "content": `{"rules":[]}`})),
				`{"text":"first done"}`,
				fmt.Sprintf(`{"toolCalls":[%s]}`, call("git2", "write", map[string]string{"file_path": ".git/config", "content": "x\n"})),
				`{"text":"second done"}`,
			}, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			rt, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{pluginDir}, Model: model, ModelName: "script",
				MaxSteps: 6, ConfigDir: cfgDir, Policy: permission.Policy{Mode: mode, File: rules}})
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			if p := rt.Policy().Protected; !slices.Contains(p, cfgDir) || !slices.Contains(p, state) || !slices.Contains(p, pluginDir+".lock") {
				t.Errorf("Policy().Protected = %v, want the config dir, the state dir and the plugin dir's lock", p)
			}
			ctx := context.Background()
			if err := rt.StartTools(ctx); err != nil {
				t.Fatal(err)
			}
			s, err := rt.CreateSession(cwd)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.CloseSession(s)
			var mu sync.Mutex
			var asked []string
			ask := askFunc(func(_ context.Context, req permission.Request) (event.Decision, error) {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case strings.Contains(req.Title, "outside the project"):
					asked = append(asked, req.CallID+" (the plugin's own question)")
				case req.Protected != "" && strings.Contains(req.ProtectedNote(), "protected") && req.AlwaysCovers() == "":
					asked = append(asked, req.CallID+" protected")
				default:
					asked = append(asked, fmt.Sprintf("%s: %+v", req.CallID, req))
				}
				return event.AllowAlways, nil
			})
			for _, prompt := range []string{"first", "second"} {
				if out := rt.Run(ctx, s, nil, event.Text(prompt), quiet{}, ask); out.Err != nil || out.Reason != event.ReasonCompleted {
					t.Fatalf("turn %s: %v %v", prompt, out.Reason, out.Err)
				}
			}
			want := "git protected; rules protected; rules (the plugin's own question); git2 protected"
			if mode == permission.ModeAllowAll {
				want = ""
			}
			if got := strings.Join(asked, "; "); got != want {
				t.Errorf("asked:\n got %s\nwant %s", got, want)
			}
			if b, _ := os.ReadFile(filepath.Join(cwd, "notes.txt")); string(b) != "ONE\n" {
				t.Errorf("the normal edit did not run: %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(cwd, ".git", "config")); string(b) != "x\n" {
				t.Errorf("the allowed protected edits did not run: %q", b)
			}
			var decisions []string
			for _, e := range s.Events() {
				if p, err := e.Decode(); err == nil {
					if p, ok := p.(event.Permission); ok {
						decisions = append(decisions, fmt.Sprintf("%s %s %s", p.CallID, p.Decision, p.Source))
					}
				}
			}
			wantD := "notes allow_once mode; git allow_once user; rules allow_once user; git2 allow_once user"
			if mode == permission.ModeAllowAll {
				wantD = "notes allow_once mode; git allow_once mode; rules allow_once mode; git2 allow_once mode"
			}
			if got := strings.Join(decisions, "; "); got != wantD {
				t.Errorf("decisions:\n got %s\nwant %s", got, wantD)
			}
		})
	}
}
