//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/internal/logtest"
)

// bashArgsCall is a scripted bash call with arguments args (a description is
// added).
func bashArgsCall(t *testing.T, id string, args map[string]string) string {
	t.Helper()
	a := map[string]string{"description": "run " + id}
	for k, v := range args {
		a[k] = v
	}
	return scriptLine(t, map[string]any{"id": id, "name": "bash", "args": a})
}

// autoScript is a turn of 20 sandboxed commands (writes in the cwd,
// reads, pipes), then a call that escalates to write outside beside, then
// a sandboxed write there.
func autoScript(t *testing.T, outside string) (script string, ids []string) {
	t.Helper()
	var calls []string
	for i := range 20 {
		line := fmt.Sprintf("echo v%d > out%d.txt", i, i)
		if i%2 == 1 {
			line = fmt.Sprintf("cat out%d.txt | tr v V | tee up%d.txt && ls | wc -l", i-1, i)
		}
		id := fmt.Sprintf("s%d", i)
		ids = append(ids, id)
		calls = append(calls, bashArgsCall(t, id, map[string]string{"command": line}))
	}
	esc := bashArgsCall(t, "esc", map[string]string{"command": "echo escaped > " + filepath.Join(outside, "escalated"),
		"sandbox": "off", "justification": "write the release notes beside the project"})
	refused := bashArgsCall(t, "refused", map[string]string{"command": "echo sneaky > " + filepath.Join(outside, "sandboxed")})
	return writeScript(t, `{"toolCalls":[`+strings.Join(calls, ",")+`]}`, `{"toolCalls":[`+esc+`]}`,
		`{"toolCalls":[`+refused+`]}`, `{"text":"done"}`), ids
}

// TestRunAuto is issue 27's auto acceptance without a terminal (nobody
// to ask, so any question would be a refusal): harness run --mode auto
// runs 20 sandboxed commands through the real bash plugin without a
// question; the call asking for sandbox "off" is refused, saying how the
// user can allow it, and writes nothing; a sandboxed write outside the cwd
// fails, its result naming the sandbox and how to escalate. The log
// records the mode, every decision by the mode, and sandbox off on the
// escalating call's tool/call.
func TestRunAuto(t *testing.T) {
	t.Parallel()
	cwd, state, outside := t.TempDir(), t.TempDir(), t.TempDir()
	script, ids := autoScript(t, outside)
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t),
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script,
		"HARNESS_PERMISSIONS_FILE": filepath.Join(t.TempDir(), "no-rules.json")}
	id := storedSession(t, state, cwd)
	code, stdout, stderr := harness(t, env, "run", "--mode", "auto", "--session", id, "go")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "· mode auto · sandbox workspace-write, network off") {
		t.Errorf("the header does not name the mode and the sandbox:\n%s", stderr)
	}
	evs, _ := logtest.ReadLog(t, state)
	results, decisions, sandboxes := map[string]map[string]any{}, map[string]map[string]any{}, map[string]string{}
	var modes []string
	for _, e := range evs {
		d, _ := e["data"].(map[string]any)
		switch e["type"] {
		case "tool/result":
			results[fmt.Sprint(d["callId"])] = d
		case "permission/decision":
			decisions[fmt.Sprint(d["callId"])] = d
		case "permission/mode":
			modes = append(modes, fmt.Sprint(d["mode"], " by ", d["by"]))
		case "tool/call":
			b, _ := json.Marshal(d["sandbox"])
			sandboxes[fmt.Sprint(d["callId"])] = string(b)
		}
	}
	if strings.Join(modes, ",") != "auto by flag" {
		t.Errorf("permission/mode events %v, want auto by flag", modes)
	}
	for i, id := range ids {
		if d := decisions[id]; d["decision"] != "allow_once" || d["source"] != "mode" {
			t.Errorf("%s: decision %v, want allowed by the mode", id, d)
		}
		if r := results[id]; r["isError"] == true || strings.Contains(fmt.Sprint(r["content"]), "exit code") {
			t.Errorf("%s: result %v", id, r)
		}
		if !strings.Contains(sandboxes[id], `"mode":"workspace-write"`) {
			t.Errorf("%s: tool/call sandbox %s", id, sandboxes[id])
		}
		if i%2 == 1 {
			if b, _ := os.ReadFile(filepath.Join(cwd, fmt.Sprintf("up%d.txt", i))); string(b) != fmt.Sprintf("V%d\n", i-1) {
				t.Errorf("%s: up%d.txt holds %q", id, i, b)
			}
		}
	}
	if c := fmt.Sprint(results["esc"]["content"]); results["esc"]["isError"] != true ||
		!strings.Contains(c, "outside the sandbox") || !strings.Contains(c, "--sandbox off") || !strings.Contains(c, "allow-all") {
		t.Errorf("the escalation with nobody to ask: %v, want refused saying how to allow it", results["esc"])
	}
	if sandboxes["esc"] != `{"mode":"off","network":"on"}` {
		t.Errorf("the escalating call's tool/call sandbox is %s, want off", sandboxes["esc"])
	}
	c := fmt.Sprint(results["refused"]["content"])
	for _, want := range []string{"sandbox (workspace-write, network off) may have refused this", `sandbox: "off"`, "justification"} {
		if !strings.Contains(c, want) {
			t.Errorf("the sandboxed write outside the cwd: result lacks %q:\n%s", want, c)
		}
	}
	for _, f := range []string{"escalated", "sandboxed"} {
		if _, err := os.Stat(filepath.Join(outside, f)); err == nil {
			t.Errorf("%s was written outside the cwd", f)
		}
	}
}

// TestRunAutoRefused: auto is refused where the sandbox cannot hold it —
// with the sandbox off, by flag or variable — with one line and exit 2
// before anything runs; a session left in auto is not continued there.
func TestRunAutoRefused(t *testing.T) {
	t.Parallel()
	state, cwd := t.TempDir(), t.TempDir()
	script := writeScript(t, `{"text":"ran"}`, `{"text":"ran"}`)
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t),
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script,
		"HARNESS_PERMISSIONS_FILE": filepath.Join(t.TempDir(), "no-rules.json")}
	id := storedSession(t, state, cwd)
	check := func(what string, code int, stdout, stderr string, words ...string) {
		t.Helper()
		if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || strings.Contains(stdout, "ran") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 with one line and nothing run", what, code, stdout, stderr)
		}
		for _, w := range words {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: %q lacks %q", what, stderr, w)
			}
		}
	}
	code, stdout, stderr := harness(t, env, "run", "--mode", "auto", "--sandbox", "off", "--session", id, "go")
	check("--mode auto --sandbox off", code, stdout, stderr, "--mode auto", "sandbox is off", "--sandbox off")
	env["HARNESS_MODE"], env["HARNESS_SANDBOX"] = "auto", "off"
	code, stdout, stderr = harness(t, env, "run", "--session", id, "go")
	check("HARNESS_MODE=auto HARNESS_SANDBOX=off", code, stdout, stderr, "HARNESS_MODE auto", "sandbox is off")

	delete(env, "HARNESS_MODE")
	delete(env, "HARNESS_SANDBOX")
	if code, stdout, stderr := harness(t, env, "run", "--mode", "auto", "--session", id, "go"); code != exitOK {
		t.Fatalf("--mode auto with the sandbox on: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = harness(t, env, "run", "--sandbox", "off", "--session", id, "go")
	check("a session in auto continued with --sandbox off", code, stdout, stderr, "is in auto mode", "--mode ask")
}

// TestRunAutoEscalation: on a terminal, in auto mode, a bash call asking
// for sandbox "off" is the one question; it shows the justification
// (escaped like everything else); answered y, the command runs outside
// the sandbox and writes beside the project; answered n, nothing is
// written.
func TestRunAutoEscalation(t *testing.T) {
	t.Parallel()
	bin, plugins := buildHarness(t)
	for _, answer := range []string{"y", "n"} {
		t.Run(answer, func(t *testing.T) {
			t.Parallel()
			cwd, state, outside := t.TempDir(), t.TempDir(), t.TempDir()
			target := filepath.Join(outside, "escalated")
			script := writeScript(t,
				`{"toolCalls":[`+bashArgsCall(t, "in", map[string]string{"command": "echo inside > in.txt"})+`]}`,
				`{"toolCalls":[`+bashArgsCall(t, "esc", map[string]string{"command": "echo escaped > " + target,
					"sandbox": "off", "justification": "publish the notes \x1b[2Kbeside the project"})+`]}`,
				`{"text":"done"}`)
			cmd := exec.Command(bin, "run", "--mode", "auto", "go")
			cmd.Dir = cwd
			cmd.Env = termEnv(state, plugins, script, "HARNESS_PERMISSIONS_FILE="+filepath.Join(t.TempDir(), "none.json"),
				"XDG_CONFIG_HOME="+t.TempDir())
			raw, code := onPTY(t, cmd, "[n]o", answer+"\r")
			if code != exitOK {
				t.Errorf("harness run exited %d:\n%q", code, raw)
			}
			wantOnlyHarnessStyles(t, "harness run --mode auto", raw)
			shown := strings.Join(screen(t, raw), "\n")
			if n := strings.Count(shown, "[y]es / [n]o"); n != 1 {
				t.Errorf("%d questions, want the escalation's only:\n%s", n, shown)
			}
			for _, want := range []string{`"publish the notes \x1b[2Kbeside the project"`, "OUTSIDE the sandbox"} {
				if !strings.Contains(shown, want) {
					t.Errorf("the question does not show %q:\n%s", want, shown)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(cwd, "in.txt")); string(b) != "inside\n" {
				t.Errorf("the sandboxed command did not run unasked: in.txt holds %q", b)
			}
			b, err := os.ReadFile(target)
			switch {
			case answer == "y" && string(b) != "escaped\n":
				t.Errorf("allowed, the escalated command did not write outside the sandbox: %q, %v\n%s", b, err, shown)
			case answer == "n" && err == nil:
				t.Errorf("refused, the escalated command wrote %q", b)
			}
		})
	}
}
