//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// pricedConfig writes a config file that prices the script provider's
// model: $1 per million input tokens, $2 per million output tokens.
func pricedConfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	cfg := "[[models]]\nprovider = \"script\"\nname = \"script\"\ninput-price = 1.0\noutput-price = 2.0\n"
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// streamSchema is docs/stream-json.schema.json, resolved.
func streamSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	b, err := os.ReadFile("../../docs/stream-json.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("the schema does not decode: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("the schema does not resolve: %v", err)
	}
	// It can fail: a line of another version, or of no known type.
	for _, bad := range []string{`{"type":"result","v":2,"session":"s"}`, `{"type":"chat","v":1,"session":"s"}`,
		`{"type":"tool_result","v":1,"session":"s","callId":"c"}`} {
		var m map[string]any
		if err := json.Unmarshal([]byte(bad), &m); err != nil {
			t.Fatal(err)
		}
		if rs.Validate(m) == nil {
			t.Fatalf("the schema takes %s", bad)
		}
	}
	return rs
}

// jsonLines decodes stdout as JSON lines, each checked against the
// schema; anything else on stdout fails the test.
func jsonLines(t *testing.T, rs *jsonschema.Resolved, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line %d is not a JSON object: %v\n%s", i+1, err, l)
		}
		if err := rs.Validate(m); err != nil {
			t.Errorf("stdout line %d does not validate: %v\n%s", i+1, err, l)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestRunStreamJSON runs a turn whose model thinks, calls the real bash
// plugin (allowed by --allowed-tools) and a tool that does not exist, then
// answers: every stdout line validates against the documented schema, in
// the order things happened, and the result line carries the cost.
func TestRunStreamJSON(t *testing.T) {
	t.Parallel()
	rs := streamSchema(t)
	script := writeScript(t,
		`{"reasoning":"plan it","toolCalls":[{"id":"b1","name":"bash","args":{"command":"echo hi","description":"say hi"}},{"id":"f1","name":"frob","args":"{oops"}],"usage":{"input":8000,"output":100}}`,
		`{"text":"All done.","usage":{"input":9000,"output":50},"expect":{"lastRole":"tool"}}`,
	)
	env := map[string]string{"HARNESS_STATE_DIR": t.TempDir(), "HARNESS_PLUGIN_DIR": testPlugins(t), "HARNESS_CONFIG": pricedConfig(t),
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script}
	code, out, errOut := harness(t, env, "run", "--output-format", "stream-json", "--allowed-tools", "bash,mcp__nothing__*", "do it")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	lines := jsonLines(t, rs, out)
	var got []string
	for _, l := range lines {
		k := l["type"].(string)
		if id, ok := l["callId"].(string); ok {
			k += " " + id
		}
		if r, ok := l["role"].(string); ok {
			k += " " + r
		}
		if k != "thinking" || got[len(got)-1] != "thinking" { // chunks coalesced
			got = append(got, k)
		}
	}
	want := []string{"message user", "thinking", "message assistant", "usage", "tool_call b1", "permission b1", "tool_result b1",
		"tool_call f1", "tool_result f1", "message assistant", "usage", "result"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("line types (-want +got):\n%s\n%s", diff, out)
	}
	byCall := func(typ, id string) map[string]any {
		for _, l := range lines {
			if l["type"] == typ && l["callId"] == id {
				return l
			}
		}
		return nil
	}
	if p := byCall("permission", "b1"); p["decision"] != "allow_once" || p["source"] != "rule" {
		t.Errorf("permission line %v: want allow_once by rule (--allowed-tools)", p)
	}
	if r := byCall("tool_result", "b1"); r["content"] != "hi\n" && !strings.HasPrefix(r["content"].(string), "hi") {
		t.Errorf("bash result %v", r)
	}
	if c := byCall("tool_call", "f1"); c["args"] != "{oops" {
		t.Errorf("arguments that are not JSON come as a string: %v", c["args"])
	}
	res := lines[len(lines)-1]
	sid := res["session"].(string)
	for _, l := range lines {
		if l["session"] != sid || l["v"] != 1.0 {
			t.Errorf("line %v: session and v must be the run's", l)
		}
	}
	wantRes := map[string]any{"stopReason": "completed", "cost": 0.0173, "currency": "USD", "turns": 2.0, "text": "All done.",
		"usage": map[string]any{"inputTokens": 17000.0, "outputTokens": 150.0}}
	for k, v := range wantRes {
		if diff := cmp.Diff(v, res[k], cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })); diff != "" {
			t.Errorf("result %s (-want +got):\n%s", k, diff)
		}
	}
	if !strings.Contains(errOut, "session "+sid) {
		t.Errorf("stderr keeps the notes for people:\n%s", errOut)
	}
}

// TestRunJSONExits: --output-format json writes the result line alone,
// whatever the end, with the documented exit status.
func TestRunJSONExits(t *testing.T) {
	t.Parallel()
	rs := streamSchema(t)
	calls := `{"toolCalls":[{"id":"c1","name":"frob","args":{}}],"usage":{"input":8000,"output":100}}`
	tests := []struct {
		name  string
		args  []string
		lines []string
		code  int
		stop  string
		cost  float64
	}{
		{"budget", []string{"--max-budget-usd", "0.01"}, []string{calls, calls, `{"text":"never"}`}, 4, "budget", 0.0082},
		{"budget not reached", []string{"--max-budget-usd", "1"}, []string{calls, `{"text":"done","usage":{"input":1000}}`}, 0, "completed", 0.0092},
		{"max turns", []string{"--max-turns", "1"}, []string{calls, `{"text":"never"}`}, 3, "max_steps", 0.0082},
		{"timeout", []string{"--timeout", "50ms"}, []string{`{"text":"late","delayMs":60000}`}, 4, "timeout", 0},
		{"refused with nobody to ask", []string{"--disallowed-tools", "frob"}, []string{`{"toolCalls":[{"id":"b1","name":"bash","args":{"command":"touch x","description":"touch"}}]}`, `{"text":"could not"}`}, 3, "completed", 0},
		{"disallowed tool hidden", []string{"--disallowed-tools", "bash", "--yes"}, []string{`{"toolCalls":[{"id":"b1","name":"bash","args":{"command":"true","description":"t"}}],"expect":{"toolsInclude":["bash_output"]}}`, `{"text":"ok","expect":{"lastContains":"unknown tool \"bash\""}}`}, 0, "completed", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"HARNESS_STATE_DIR": t.TempDir(), "HARNESS_PLUGIN_DIR": testPlugins(t), "HARNESS_CONFIG": pricedConfig(t),
				"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": writeScript(t, tc.lines...)}
			args := append(append([]string{"run", "--output-format", "json"}, tc.args...), "go")
			code, out, errOut := harness(t, env, args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, errOut)
			}
			lines := jsonLines(t, rs, out)
			if len(lines) != 1 {
				t.Fatalf("%d lines on stdout, want the result alone:\n%s", len(lines), out)
			}
			r := lines[0]
			if r["type"] != "result" || r["stopReason"] != tc.stop {
				t.Errorf("result %v, want stopReason %s", r, tc.stop)
			}
			if c, _ := r["cost"].(float64); c-tc.cost > 1e-9 || tc.cost-c > 1e-9 {
				t.Errorf("cost %v, want %v", r["cost"], tc.cost)
			}
			if (tc.code == 0) != (r["error"] == nil) {
				t.Errorf("error %v with exit %d", r["error"], code)
			}
		})
	}
}

// TestRunContinue: -c continues the latest session of the folder it runs
// in, among three sessions in two folders; --resume without a terminal
// fails listing this folder's sessions.
func TestRunContinue(t *testing.T) {
	t.Parallel()
	bin, _ := buildHarness(t)
	state := t.TempDir()
	a, b := t.TempDir(), t.TempDir()
	script := writeScript(t,
		`{"text":"one","when":{"lastContains":"first"}}`,
		`{"text":"two","when":{"lastContains":"second"}}`,
		`{"text":"three","when":{"lastContains":"third"}}`,
		`{"text":"four","when":{"lastContains":"fourth"}}`,
	)
	runIn := func(dir string, args ...string) (int, string, string) {
		cmd := exec.Command(bin, append([]string{"run", "--output-format", "json"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(installedEnv(state), "HARNESS_PROVIDER=script", "HARNESS_SCRIPT="+script)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	session := func(out string) string {
		var r struct{ Session string }
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Session == "" {
			t.Fatalf("no result line: %v\n%s", err, out)
		}
		return r.Session
	}
	var ids []string
	for _, run := range []struct{ dir, prompt string }{{a, "first"}, {a, "second"}, {b, "third"}} {
		code, out, errOut := runIn(run.dir, run.prompt)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		ids = append(ids, session(out))
	}
	code, out, errOut := runIn(a, "-c", "fourth")
	if code != 0 {
		t.Fatalf("-c: exit %d\n%s", code, errOut)
	}
	if got := session(out); got != ids[1] {
		t.Errorf("-c in folder a continued %s, want the latest of a, %s (sessions %v)", got, ids[1], ids)
	}
	code, _, errOut = runIn(a, "--resume", "fifth")
	if code != 2 || !strings.Contains(errOut, "--resume needs a terminal") || !strings.Contains(errOut, ids[0]) || !strings.Contains(errOut, ids[1]) || strings.Contains(errOut, ids[2]) {
		t.Errorf("--resume without a terminal: exit %d, want 2 and the list of folder a's sessions\n%s", code, errOut)
	}
	if code, _, errOut = runIn(t.TempDir(), "-c", "nothing here"); code != 2 || !strings.Contains(errOut, "no session to continue in this folder") {
		t.Errorf("-c in a folder without sessions: exit %d\n%s", code, errOut)
	}
	// Which session comes from the logs alone: a provider without its key
	// does not hide the list, or that there is none.
	noKey := func(dir string, args ...string) (int, string) {
		cmd := exec.Command(bin, append([]string{"run"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(installedEnv(state), "HARNESS_PROVIDER=deepseek")
		var errb strings.Builder
		cmd.Stderr = &errb
		cmd.Run()
		return cmd.ProcessState.ExitCode(), errb.String()
	}
	if code, errOut := noKey(a, "--resume"); code != 2 || !strings.Contains(errOut, ids[1]) || strings.Contains(errOut, "API key") {
		t.Errorf("--resume with no key: exit %d, want 2 and the list\n%s", code, errOut)
	}
	if code, errOut := noKey(t.TempDir(), "-c", "hi"); code != 2 || !strings.Contains(errOut, "no session to continue") {
		t.Errorf("-c with no key and no session: exit %d\n%s", code, errOut)
	}
}

// TestRunCIScript is a CI job's use: a bash script runs harness with
// --output-format json and reads the stop reason and the cost with jq.
func TestRunCIScript(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the CI script needs %s: %v", tool, err)
		}
	}
	bin, _ := buildHarness(t)
	calls := `{"toolCalls":[{"id":"c1","name":"frob","args":{}}],"usage":{"input":8000,"output":100}}`
	script := writeScript(t, calls, calls, `{"text":"never"}`)
	const job = `set -euo pipefail
status=0
out=$("$HARNESS" run --output-format json --max-budget-usd 0.01 "fix the build") || status=$?
stop=$(jq -r .stopReason <<<"$out")
cost=$(jq -r .cost <<<"$out")
echo "exit=$status stop=$stop cost=$cost"
if [ "$stop" = budget ]; then echo "over budget: $cost USD"; fi
`
	cmd := exec.Command("bash", "-c", job)
	cmd.Dir = t.TempDir()
	cmd.Env = append(installedEnv(t.TempDir()), "HARNESS="+bin, "HARNESS_PROVIDER=script", "HARNESS_SCRIPT="+script, "HARNESS_CONFIG="+pricedConfig(t))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the job failed: %v\n%s", err, out)
	}
	if want := "exit=4 stop=budget cost=0.0082\nover budget: 0.0082 USD\n"; string(out) != want {
		t.Errorf("the job printed %q, want %q", out, want)
	}
}

// TestSessionsFork forks a session of two turns after its first: the
// fork's log starts with the parent's events up to there, its header
// names the parent and the point, its own turn sends the model the first
// turn but not the second, and the parent's log is left as it was.
func TestSessionsFork(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	script := writeScript(t,
		`{"text":"one","when":{"lastContains":"first"}}`,
		`{"text":"two","when":{"lastContains":"second"}}`,
		`{"text":"forked","when":{"lastContains":"third","contains":["first"]}}`,
	)
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script}
	code, out, errOut := harness(t, env, "run", "--output-format", "json", "first")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var r struct{ Session string }
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	parentPath := filepath.Join(state, "sessions", r.Session+".jsonl")
	lines := func(path string) []string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	at := len(lines(parentPath)) - 1 // the events of turn 1
	if code, _, errOut := harness(t, env, "run", "--session", r.Session, "second"); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	parent := lines(parentPath)

	code, out, errOut = harness(t, env, "sessions", "fork", r.Session, "--at", fmt.Sprint(at))
	if code != 0 {
		t.Fatalf("fork: exit %d\n%s", code, errOut)
	}
	child := strings.TrimSpace(out)
	if !strings.Contains(errOut, "harness run --session "+child) {
		t.Errorf("stderr says how to go on:\n%s", errOut)
	}
	if code, _, errOut := harness(t, env, "run", "--session", child, "third"); code != 0 {
		t.Fatalf("a turn of the fork: exit %d\n%s", code, errOut)
	}
	if got := lines(parentPath); !slices.Equal(got, parent) {
		t.Error("the fork's turn changed the parent's log")
	}
	forked := lines(filepath.Join(state, "sessions", child+".jsonl"))
	var h struct {
		ParentSession string
		ForkSeq       int
	}
	if err := json.Unmarshal([]byte(forked[0]), &h); err != nil || h.ParentSession != r.Session || h.ForkSeq != at {
		t.Errorf("fork header %s: want parentSession %s, forkSeq %d", forked[0], r.Session, at)
	}
	data := func(l string) string {
		var rec struct {
			Type string
			Data json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		return rec.Type + " " + string(rec.Data)
	}
	for i := 1; i <= at; i++ {
		if data(forked[i]) != data(parent[i]) {
			t.Errorf("fork event %d = %s, want the parent's %s", i-1, data(forked[i]), data(parent[i]))
		}
	}
	if text := strings.Join(forked, "\n"); strings.Contains(text, "second") || !strings.Contains(text, "forked") {
		t.Errorf("the fork holds the parent's second turn, or not its own:\n%s", text)
	}
	for _, bad := range [][]string{{"sessions", "fork"}, {"sessions", "fork", r.Session, "--at", fmt.Sprint(at + 2)}, {"sessions", "fork", "20991231T235959-0badc0de"}} {
		if code, _, errOut := harness(t, env, bad...); code == 0 || !strings.HasPrefix(errOut, "harness: ") {
			t.Errorf("%v: exit %d, stderr %q; want a one-line refusal", bad, code, errOut)
		}
	}
}
