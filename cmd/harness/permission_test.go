package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/session"
)

// permissionRun runs one turn whose scripted model calls the real bash
// plugin once per command line, with the rules in rules, and returns the
// session's permission decisions by call id, and its log's text.
func permissionRun(t *testing.T, rules string, extra []string, lines []string) (map[string]event.Permission, string) {
	t.Helper()
	state := t.TempDir()
	rulesFile := filepath.Join(t.TempDir(), "permissions.json")
	if err := os.WriteFile(rulesFile, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	var calls []string
	for i, l := range lines {
		args, _ := json.Marshal(map[string]string{"command": l, "description": "try it"})
		calls = append(calls, fmt.Sprintf(`{"id":"c%d","name":"bash","args":%s}`, i, args))
	}
	script := writeScript(t,
		fmt.Sprintf(`{"toolCalls":[%s]}`, strings.Join(calls, ",")),
		`{"text":"done"}`,
	)
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t),
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script, "HARNESS_PERMISSIONS_FILE": rulesFile}
	args := append(append([]string{"run"}, extra...), "try them")
	if code, out, errOut := harness(t, env, args...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	st := &session.Store{Dir: filepath.Join(state, "sessions")}
	list, err := st.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions = %v, %v", list, err)
	}
	s, err := st.Open(list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	text, err := os.ReadFile(filepath.Join(state, "sessions", list[0].ID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
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
	return out, string(text)
}

// TestDenyRuleRealBash: with --yes and a deny rule for "rm ", the model
// tries many spellings of rm through the real bash plugin; the file stays,
// and a harmless call in the same turn runs (the calls do reach bash: its
// output, computed, is in the log; the victim's folder is outside the
// sandbox's writable roots, so the control writes nothing there).
func TestDenyRuleRealBash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	v := victim
	forms := []string{
		"rm " + v, "/bin/rm " + v, "true; rm " + v, "true && rm " + v, "false || rm " + v, "echo | rm " + v,
		"echo $(rm " + v + ")", "echo `rm " + v + "`", "bash -c 'rm " + v + "'", `sh -c "rm ` + v + `"`,
		"FOO=1 rm " + v, "env rm " + v, "env -i FOO=1 rm " + v, "command rm " + v, "exec rm " + v,
		"(rm " + v + ")", "{ rm " + v + "; }", "if true; then rm " + v + "; fi", "for f in " + v + "; do rm $f; done",
		"nohup rm " + v, "timeout 5 rm " + v, "time rm " + v, "nice -n 5 rm " + v, "xargs rm <<< " + v,
		"eval rm " + v, `"rm" ` + v, `r\m ` + v, "cat <(rm " + v + ")", "rm " + v + " &", "/usr/bin/env rm " + v,
		"$(echo rm) " + v, "echo 'rm " + v + "' | bash", "find " + dir + " -name victim -exec rm {} \\;",
		"echo control-$((40+2))", // control: allowed by --yes
	}
	rules := `{"rules":[{"tool":"bash","prefix":"rm ","action":"deny"}]}`
	d, log := permissionRun(t, rules, []string{"--yes"}, forms)
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the victim is gone: %v", err)
	}
	if !strings.Contains(log, "control-42") {
		t.Errorf("the control call did not run: its output is not in the log")
	}
	for i, f := range forms {
		p, ok := d[fmt.Sprintf("c%d", i)]
		wantAllow := i == len(forms)-1
		if !ok || p.Decision.Allows() != wantAllow {
			t.Errorf("%q: decision %+v, want allowed %v", f, p, wantAllow)
		}
	}
}

// TestAllowRuleRealBash: in ask mode with no terminal, an allow rule for
// git status lets git status run but no line that chains another command.
func TestAllowRuleRealBash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	x := filepath.Join(dir, "x")
	lines := []string{
		"git status; touch " + x, "git statusx; touch " + x, "git status && touch " + x, "git status || touch " + x,
		"git status | touch " + x, "git status $(touch " + x + ")", "git status & touch " + x, "git status\ntouch " + x,
		"git status > " + x, "PATH=" + dir + " git status", "bash -c 'git status; touch " + x + "'",
		"git status", // allowed: runs (git reports what it reports)
	}
	rules := `{"rules":[{"tool":"bash","prefix":"git status","action":"allow"}]}`
	d, _ := permissionRun(t, rules, nil, lines)
	if _, err := os.Stat(x); err == nil {
		t.Errorf("a chained command ran: %s exists", x)
	}
	for i, l := range lines {
		p := d[fmt.Sprintf("c%d", i)]
		wantAllow := i == len(lines)-1
		if p.Decision.Allows() != wantAllow {
			t.Errorf("%q: decision %+v, want allowed %v", l, p, wantAllow)
		}
	}
}
