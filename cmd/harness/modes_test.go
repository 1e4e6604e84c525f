package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/internal/logtest"
)

// TestRunModes: harness run with the real fs and bash plugins and the
// script provider, no terminal (so nobody to ask). In read-only mode an
// edit and a bash call get error results saying so and nothing changes on
// disk; --mode accept-edits lets an edit inside the cwd run while bash,
// which asks, is refused; a later run without --mode keeps the session's
// mode. Every switch is a permission/mode event in the log.
func TestRunModes(t *testing.T) {
	t.Parallel()
	cwd, state := t.TempDir(), t.TempDir()
	notes := filepath.Join(cwd, "notes.txt")
	if err := os.WriteFile(notes, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	made := filepath.Join(cwd, "made-by-bash")
	id := storedSession(t, state, cwd)
	call := func(id, name string, args map[string]string) string {
		b, _ := json.Marshal(args)
		return fmt.Sprintf(`{"id":%q,"name":%q,"args":%s}`, id, name, b)
	}
	turn := func(n int, old, new string) []string {
		return []string{
			fmt.Sprintf(`{"toolCalls":[%s]}`, call(fmt.Sprint("read", n), "read", map[string]string{"file_path": "notes.txt"})),
			fmt.Sprintf(`{"toolCalls":[%s,%s]}`,
				call(fmt.Sprint("edit", n), "edit", map[string]string{"file_path": "notes.txt", "old_string": old, "new_string": new}),
				call(fmt.Sprint("bash", n), "bash", map[string]string{"command": "touch " + made, "description": "make a file"})),
			`{"text":"done"}`,
		}
	}
	results := func() map[string]map[string]any {
		evs, _ := logtest.ReadLog(t, state)
		out := map[string]map[string]any{}
		for _, e := range evs {
			d, _ := e["data"].(map[string]any)
			switch e["type"] {
			case "tool/result":
				out[fmt.Sprint(d["callId"])] = d
			case "permission/decision":
				out["decision "+fmt.Sprint(d["callId"])] = d
			case "permission/mode":
				out[fmt.Sprintf("mode %d", len(out))] = d
			}
		}
		return out
	}
	modes := func(r map[string]map[string]any) []string {
		var out []string
		for i := 0; i < 100; i++ {
			if d, ok := r[fmt.Sprintf("mode %d", i)]; ok {
				out = append(out, fmt.Sprintf("%s by %s", d["mode"], d["by"]))
			}
		}
		return out
	}
	run := func(script []string, flags ...string) {
		t.Helper()
		env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t),
			"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": writeScript(t, script...),
			"HARNESS_PERMISSIONS_FILE": filepath.Join(t.TempDir(), "no-rules.json")}
		args := append(append([]string{"run", "--session", id}, flags...), "go")
		if code, stdout, stderr := harness(t, env, args...); code != exitOK {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
	}

	run(turn(1, "two", "TWO"), "--mode", "read-only")
	r := results()
	for _, c := range []string{"edit1", "bash1"} {
		content, _ := r[c]["content"].(string)
		if r[c]["isError"] != true || !strings.Contains(content, "read-only mode") || !strings.Contains(content, "--mode") {
			t.Errorf("%s in read-only mode: %v, want an error result saying so and how to switch", c, r[c])
		}
	}
	if c, _ := r["read1"]["content"].(string); !strings.Contains(c, "two") {
		t.Errorf("the read in read-only mode: %v", r["read1"])
	}
	if b, _ := os.ReadFile(notes); string(b) != "one\ntwo\n" {
		t.Errorf("read-only mode changed the file: %q", b)
	}
	if _, err := os.Stat(made); err == nil {
		t.Error("bash ran in read-only mode")
	}

	run(turn(2, "two", "TWO"), "--mode", "accept-edits")
	r = results()
	if r["edit2"]["isError"] == true || r["decision edit2"]["source"] != "mode" {
		t.Errorf("the edit in accept-edits: %v (decision %v), want run by the mode", r["edit2"], r["decision edit2"])
	}
	if b, _ := os.ReadFile(notes); string(b) != "one\nTWO\n" {
		t.Errorf("after the edit in accept-edits the file is %q", b)
	}
	if c, _ := r["bash2"]["content"].(string); r["bash2"]["isError"] != true || !strings.Contains(c, "no one to ask") {
		t.Errorf("bash in accept-edits without a terminal: %v, want refused for want of someone to ask", r["bash2"])
	}
	if _, err := os.Stat(made); err == nil {
		t.Error("bash ran in accept-edits mode without being allowed")
	}

	run(turn(3, "TWO", "2")) // no --mode: the session keeps accept-edits
	r = results()
	if b, _ := os.ReadFile(notes); string(b) != "one\n2\n" || r["edit3"]["isError"] == true {
		t.Errorf("a run without --mode did not keep accept-edits: file %q, edit %v", b, r["edit3"])
	}
	if got, want := strings.Join(modes(r), ", "), "read-only by flag, accept-edits by flag"; got != want {
		t.Errorf("permission/mode events: %s, want %s", got, want)
	}
}

// TestRunProtected: harness run --mode accept-edits with the real fs
// plugin and nobody to ask: a write to a new file in the cwd runs, but a
// write to the file given by --config — here inside the cwd — and one to
// .git/config are refused, saying the path is protected.
func TestRunProtected(t *testing.T) {
	t.Parallel()
	cwd, state := t.TempDir(), t.TempDir()
	conf := filepath.Join(cwd, "harness.toml")
	if err := os.WriteFile(conf, []byte("max-steps = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cwd, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	call := func(id string, args map[string]string) string {
		b, _ := json.Marshal(args)
		return fmt.Sprintf(`{"id":%q,"name":"write","args":%s}`, id, b)
	}
	script := writeScript(t, fmt.Sprintf(`{"toolCalls":[%s,%s,%s]}`,
		call("plain", map[string]string{"file_path": "new.txt", "content": "x\n"}),
		call("conf", map[string]string{"file_path": "harness.toml", "content": "yes = true\n"}),
		call("git", map[string]string{"file_path": ".git/config", "content": "x\n"})), `{"text":"done"}`)
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t),
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script,
		"HARNESS_PERMISSIONS_FILE": filepath.Join(t.TempDir(), "no-rules.json")}
	id := storedSession(t, state, cwd)
	if code, stdout, stderr := harness(t, env, "run", "--config", conf, "--mode", "accept-edits", "--session", id, "go"); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	evs, _ := logtest.ReadLog(t, state)
	results := map[string]map[string]any{}
	for _, e := range evs {
		if d, _ := e["data"].(map[string]any); e["type"] == "tool/result" {
			results[fmt.Sprint(d["callId"])] = d
		}
	}
	if results["plain"]["isError"] == true {
		t.Errorf("the write of a new file in accept-edits: %v", results["plain"])
	}
	for _, c := range []string{"conf", "git"} {
		content, _ := results[c]["content"].(string)
		if results[c]["isError"] != true || !strings.Contains(content, "is protected") {
			t.Errorf("the write %s in accept-edits: %v, want refused as protected", c, results[c])
		}
	}
	if b, _ := os.ReadFile(conf); string(b) != "max-steps = 5\n" {
		t.Errorf("the config file was rewritten: %q", b)
	}
}

// storedSession creates an empty session for cwd in the state dir, as an
// earlier run would have, and returns its id.
func storedSession(t *testing.T, state, cwd string) string {
	t.Helper()
	s, err := (&session.Store{Dir: filepath.Join(state, "sessions")}).Create(session.CreateOptions{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.ID()
}
