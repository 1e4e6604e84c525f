//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/session/natsstore"
	"github.com/harness-dev/harness/internal/logtest"
)

// compactWindow is the context window of the compaction tests, in tokens.
const compactWindow = 8192

// todoItem is the todo list's first item; it must reach every request.
const todoItem = "write the compaction test"

// testSessions is where the compaction tests' harness keeps its
// sessions: the state folder's files, or, in CI's JetStream row
// (HARNESS_TEST_STORE=nats: TestMain sets HARNESS_STORE), the NATS server
// every harness of the run shares. The tests read the logs through it,
// as harness does, never as files.
type testSessions struct {
	url   string // HARNESS_STORE, "" for files
	store *session.Store
}

// sessionsOf returns the store of the harness runs with state dir state.
func sessionsOf(t *testing.T, state string) *testSessions {
	t.Helper()
	url := os.Getenv("HARNESS_STORE")
	if url == "" {
		return &testSessions{store: &session.Store{Dir: filepath.Join(state, "sessions")}}
	}
	b, err := natsstore.Connect(context.Background(), url, natsstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &testSessions{url: url, store: &session.Store{Backend: b}}
}

// env adds the store to the environment of an in-process harness run.
func (ts *testSessions) env(env map[string]string) map[string]string {
	if ts.url != "" {
		env["HARNESS_STORE"] = ts.url
		env["HARNESS_STORE_LEASE"] = "2s" // a killed run's session is taken over soon
	}
	return env
}

// environ adds the store to the environment of a harness process.
func (ts *testSessions) environ(env []string) []string {
	if ts.url != "" {
		env = append(env, "HARNESS_STORE="+ts.url, "HARNESS_STORE_LEASE=2s")
	}
	return env
}

// events returns session id's events.
func (ts *testSessions) events(t *testing.T, id string) []event.Event {
	t.Helper()
	evs, err := ts.store.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// open opens session id for reading; closed when the test ends.
func (ts *testSessions) open(t *testing.T, id string) *session.Session {
	t.Helper()
	s, err := ts.store.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// export returns session id's log as JSONL, the header first.
func (ts *testSessions) export(t *testing.T, id string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := ts.store.Export(id, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// headerID is the session id a harness run's header (stderr) names.
func headerID(t *testing.T, errOut string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^session (\S+) · `).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no session in the header:\n%s", errOut)
	}
	return m[1]
}

// turnPrompt is turn i's prompt: about 1,500 characters of words, with a
// marker that names the turn.
func turnPrompt(i int) string {
	words := []string{"session", "context", "window", "summary", "history", "plugin", "token", "model",
		"request", "compaction", "editor", "terminal", "budget", "provider", "replay", "verbatim"}
	r := rand.New(rand.NewPCG(uint64(i), 7))
	var b strings.Builder
	fmt.Fprintf(&b, "Turn %02d. ", i)
	for b.Len() < 1500 {
		b.WriteString(words[r.IntN(len(words))] + " ")
	}
	return strings.TrimSpace(b.String())
}

// compactTurnScript is the script of turn i: its answer checks that the
// request fits the window and holds the turn's prompt and the todo list's
// first item; a summary line answers a compaction whenever one comes,
// but in turn 1, which plans with todo_write first.
func compactTurnScript(t *testing.T, i int) string {
	expect := fmt.Sprintf(`"expect":{"maxTokens":%d,"contains":[%q,%q]}`, compactWindow, fmt.Sprintf("Turn %02d.", i), todoItem)
	answer := fmt.Sprintf(`{"text":"Noted turn %02d. %s",%s}`, i, strings.Repeat("Acknowledged and filed. ", 12), expect)
	summary := fmt.Sprintf(`{"when":{"lastContains":"<transcript>"},"text":"Summary up to turn %02d: the user sends long notes, one per turn; each was acknowledged. Nothing else is pending.","expect":{"maxTokens":%d}}`, i, compactWindow)
	if i == 1 {
		// No summary line: a summary request before the first answer
		// would meet the plan's line, which wants the tools offered.
		plan := `{"toolCalls":[{"id":"w1","name":"todo_write","args":{"todos":[{"content":"` + todoItem + `","status":"in_progress"},{"content":"ship it","status":"pending"}]}}],` +
			`"expect":{"lastRole":"user","toolsInclude":["todo_write"]}}`
		return writeScript(t, plan, answer)
	}
	return writeScript(t, summary, answer)
}

// historyAt returns the model's history as session id's log (log, as
// exported) derived it before event seq: the log cut there, opened as a
// session.
func historyAt(t *testing.T, id string, log []byte, seq int64) []llm.Message {
	t.Helper()
	dir := t.TempDir()
	var cut strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(nil, 16<<20)
	for n := int64(-1); sc.Scan() && n < seq; n++ {
		cut.WriteString(sc.Text() + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(cut.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := (&session.Store{Dir: dir}).Open(id)
	if err != nil {
		t.Fatalf("open the log cut before seq %d: %v", seq, err)
	}
	defer s.Close()
	return s.Messages()
}

// TestCompactionLongSession is the acceptance of issues 30 and its
// predecessor: a window of 8192 tokens, the built-in plugins, 20 turns of
// ~1,500 characters, one harness run --session each, turn 1 planning with
// todo_write. No summary request comes before the first answer; no turn
// fails; no request is larger than the window (the script checks each
// with llm.EstimateRequest); the log holds at most 7 compactions in the 20
// turns, and for each: the whole request after it (system prompt, tool
// specs and history, as llm.EstimateRequest counts the request the loop
// sends) is smaller than the whole request sent before it, at most half
// the window (the compaction target), and holds the todo list verbatim and
// the last user message. The log keeps all 20 prompts, and a session/load
// of `harness acp` replays all 20 to the editor with the plan.
func TestCompactionLongSession(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	sessions := sessionsOf(t, state)
	plugins := testPlugins(t) // the built-ins: harness() runs next to them
	env := sessions.env(map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": plugins, "HARNESS_PROVIDER": "script",
		"HARNESS_CONTEXT_WINDOW": fmt.Sprint(compactWindow)})
	id := ""
	for i := 1; i <= 20; i++ {
		env["HARNESS_SCRIPT"] = compactTurnScript(t, i)
		args := []string{"run"}
		if id != "" {
			args = append(args, "--session", id)
		}
		code, out, errOut := harness(t, env, append(args, turnPrompt(i))...)
		if code != 0 {
			t.Fatalf("turn %d: exit %d\n%s\n%s", i, code, out, errOut)
		}
		if i == 1 && (!regexp.MustCompile(`· fixed ~\d+/8192 tokens\n`).MatchString(errOut) || strings.Contains(errOut, "warning:")) {
			t.Errorf("turn 1's header does not show the fixed part, or warns:\n%s", errOut)
		}
		if id == "" {
			id = headerID(t, errOut)
		}
	}
	s := sessions.open(t, id)
	evs, cwd := s.Events(), s.Cwd()
	log := sessions.export(t, id)
	request := wholeRequest(t, plugins, cwd)

	// Each compaction with the step/start before it (whose request was the
	// last one sent before it) and the one after it, and the last prompt
	// logged before the step after it.
	type compaction struct {
		c                  event.Compact
		seq, before, after int64
		lastUser           string
	}
	var compacts []*compaction
	prompts := 0
	lastUser := ""
	var lastStep int64 = -1
	answered := false
	for _, ev := range evs {
		switch ev.Type {
		case event.TypeAssistantMessage:
			answered = true
		case event.TypeCompact:
			if !answered {
				t.Errorf("a compaction (seq %d) before the first answer", ev.Seq)
			}
			p, _ := ev.Decode()
			compacts = append(compacts, &compaction{c: p.(event.Compact), seq: ev.Seq, before: lastStep, after: -1})
		case event.TypeStepStart:
			lastStep = ev.Seq
			if n := len(compacts); n > 0 && compacts[n-1].after < 0 {
				compacts[n-1].after, compacts[n-1].lastUser = ev.Seq, lastUser
			}
		case event.TypeUserMessage:
			prompts++
			p, _ := ev.Decode()
			lastUser = p.(event.UserMessage).Content[0].Text
		}
	}
	if prompts != 20 {
		t.Errorf("the log holds %d prompts, want 20", prompts)
	}
	if len(compacts) < 2 || len(compacts) > 7 {
		t.Fatalf("%d compactions in 20 turns, want 2 to 7", len(compacts))
	}
	for _, cp := range compacts {
		c := cp.c
		if c.Reason != event.CompactAuto || c.Window != compactWindow || c.TokensAfter >= c.TokensBefore || cp.before < 0 || cp.after < 0 {
			t.Errorf("compaction at seq %d: %+v (step before at %d, after at %d)", cp.seq, c, cp.before, cp.after)
			continue
		}
		hb, ha := historyAt(t, id, log, cp.before), historyAt(t, id, log, cp.after)
		b, a := request(hb), request(ha)
		t.Logf("compaction at seq %d: keep %d, logged ~%d → ~%d tokens; the whole request before ~%d, after ~%d", cp.seq, c.Keep, c.TokensBefore, c.TokensAfter, b, a)
		if a >= b {
			t.Errorf("compaction at seq %d: the whole request after it (~%d tokens) is not smaller than the one before (~%d)", cp.seq, a, b)
		}
		if a > compactWindow || b > compactWindow {
			t.Errorf("compaction at seq %d: a request is larger than the window: before ~%d, after ~%d", cp.seq, b, a)
		}
		if a > compactWindow/2 {
			t.Errorf("compaction at seq %d: the request after it (~%d tokens) passes the target, half the window", cp.seq, a)
		}
		all := ""
		for _, m := range ha {
			all += m.Text + "\n"
		}
		for _, want := range []string{"- [in_progress] " + todoItem + "\n- [pending] ship it", cp.lastUser, "Summary up to turn"} {
			if !strings.Contains(all, want) {
				t.Errorf("compaction at seq %d: the request after it lacks %q", cp.seq, shortenForLog(want))
			}
		}
	}
	loadReplays(t, sessions, state, id, cwd)
}

// wholeRequest returns what the loop's request with messages msgs weighs
// (llm.EstimateRequest, the script's maxTokens measure): the system prompt
// as a session in cwd sends it with the tools of the plugins in dir, their
// specs, and msgs.
func wholeRequest(t *testing.T, dir, cwd string) func(msgs []llm.Message) int {
	t.Helper()
	rt, err := engine.New(engine.Config{StateDir: t.TempDir(), PluginDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if err := rt.StartTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	loop, err := rt.Loop(cwd)
	if err != nil {
		t.Fatal(err)
	}
	var specs []llm.ToolSpec
	for _, tl := range rt.Tools() { // the plugins' tools, as the loop's steps list them
		specs = append(specs, tl.Spec)
	}
	if len(specs) < 10 {
		t.Fatalf("the built-in plugins offer %d tools, want 10 or more", len(specs))
	}
	system := loop.System
	return func(msgs []llm.Message) int {
		return llm.EstimateRequest(llm.Request{System: system, Tools: specs, Messages: msgs})
	}
}

// loadReplays loads session id in `harness acp` (session/load) and checks
// that it replays all 20 prompts and the plan.
func loadReplays(t *testing.T, sessions *testSessions, state, id, cwd string) {
	t.Helper()
	bin, _ := buildHarness(t)
	cmd := exec.Command(bin, "acp")
	cmd.Env = append(sessions.environ(installedEnv(state)), "HARNESS_PROVIDER=script", "HARNESS_SCRIPT="+writeScript(t))
	d := startACPDriver(t, cmd)
	defer func() {
		d.in.Close()
		cmd.Wait()
	}()
	if _, err := fmt.Fprintf(d.in, `{"jsonrpc":"2.0","id":99,"method":"session/load","params":{"sessionId":%q,"cwd":%q,"mcpServers":[]}}`+"\n", id, cwd); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	plan := ""
	timeout := time.After(60 * time.Second)
	for done := false; !done; {
		select {
		case l, ok := <-d.lines:
			if !ok {
				t.Fatal("harness acp closed stdout before answering session/load")
			}
			var m struct {
				ID     int `json:"id"`
				Error  any `json:"error"`
				Params struct {
					Update struct {
						SessionUpdate string          `json:"sessionUpdate"`
						Content       json.RawMessage `json:"content"` // an object, or a tool call's array
						Entries       []struct {
							Content, Status string
						} `json:"entries"`
					} `json:"update"`
				} `json:"params"`
			}
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("harness acp wrote %q: %v", l, err)
			}
			u := m.Params.Update
			switch {
			case m.ID == 99:
				if m.Error != nil {
					t.Fatalf("session/load failed: %s", l)
				}
				done = true
			case u.SessionUpdate == "user_message_chunk":
				var c struct{ Text string }
				if err := json.Unmarshal(u.Content, &c); err == nil && strings.HasPrefix(c.Text, "Turn ") {
					seen[c.Text[:len("Turn 00.")]] = true
				}
			case u.SessionUpdate == "plan":
				plan = fmt.Sprint(u.Entries)
			}
		case <-timeout:
			t.Fatal("no answer to session/load in 60 s")
		}
	}
	for i := 1; i <= 20; i++ {
		if !seen[fmt.Sprintf("Turn %02d.", i)] {
			t.Errorf("session/load did not replay turn %d's prompt", i)
		}
	}
	if want := fmt.Sprint([]struct{ Content, Status string }{{todoItem, "in_progress"}, {"ship it", "pending"}}); plan != want {
		t.Errorf("session/load's plan = %s, want %s", plan, want)
	}
}

func shortenForLog(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TestCompactionOverflow configures a window far too large: the provider's
// overflow error ("maximum context length is 8192 tokens") leads to a
// compaction whose summary request fits 8192 tokens, and the step is
// retried within them: no turn fails. The next run believes the provider's
// limit over the configuration.
func TestCompactionOverflow(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	sessions := sessionsOf(t, state)
	env := sessions.env(map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t), "HARNESS_PROVIDER": "script",
		"HARNESS_CONTEXT_WINDOW": "1000000"})
	id := ""
	run := func(i int, lines ...string) {
		t.Helper()
		env["HARNESS_SCRIPT"] = writeScript(t, lines...)
		args := []string{"run"}
		if id != "" {
			args = append(args, "--session", id)
		}
		code, out, errOut := harness(t, env, append(args, turnPrompt(i))...)
		if code != 0 {
			t.Fatalf("turn %d: exit %d\n%s\n%s", i, code, out, errOut)
		}
		if id == "" {
			id = headerID(t, errOut)
		}
	}
	for i := 1; i <= 5; i++ {
		run(i, fmt.Sprintf(`{"text":"Noted turn %02d."}`, i))
	}
	fits := fmt.Sprintf(`"maxTokens":%d`, compactWindow)
	run(6,
		`{"error":"This model's maximum context length is 8192 tokens. However, you requested 9313 tokens (9313 in the messages, 0 in the completion). Please reduce the length of the messages."}`,
		`{"when":{"lastContains":"<transcript>"},"text":"Summary: five long notes, all acknowledged.","expect":{`+fits+`}}`,
		`{"text":"Noted turn 06 after compacting.","expect":{`+fits+`,"contains":["Turn 06.","Summary: five long notes"]}}`)
	// The next run believes the provider: it compacts before its request
	// passes 80 % of 8192, though the configuration says 1,000,000 (the
	// script's first line answers only a summary request), and the request
	// after it fits the provider's window. (Not necessarily under 80 %:
	// the system prompt and the real plugins' tool list, which no
	// compaction shortens, are a third of so small a window.)
	run(7,
		`{"when":{"lastContains":"<transcript>"},"text":"Summary: six long notes.","expect":{`+fits+`}}`,
		`{"text":"Noted turn 07.","expect":{`+fits+`,"contains":["Turn 07."]}}`)

	s := sessions.open(t, id)
	var got []event.Compact
	for _, ev := range s.Events() {
		if ev.Type == event.TypeCompact {
			p, _ := ev.Decode()
			got = append(got, p.(event.Compact))
		}
		if ev.Type == event.TypeTurnEnd {
			p, _ := ev.Decode()
			if r := p.(event.TurnEnd).Reason; r != event.ReasonCompleted {
				t.Errorf("turn ended %s", r)
			}
		}
	}
	if len(got) < 1 || got[0].Reason != event.CompactOverflow || got[0].Limit != compactWindow {
		t.Fatalf("compactions %+v, want an overflow one with the provider's limit first", got)
	}
	if s.ContextLimit() != compactWindow {
		t.Errorf("the session believes a limit of %d, want %d", s.ContextLimit(), compactWindow)
	}
}

// firstTurn runs a first turn ("first", answered "one") of a new session
// and returns the session's id.
func firstTurn(t *testing.T, env map[string]string) string {
	t.Helper()
	env["HARNESS_SCRIPT"] = writeScript(t, `{"text":"one"}`)
	code, out, errOut := harness(t, env, "run", "first")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	return headerID(t, errOut)
}

// compactions are the compactions events evs hold.
func compactions(evs []event.Event) []event.Compact {
	var cs []event.Compact
	for _, ev := range evs {
		if ev.Type == event.TypeCompact {
			p, _ := ev.Decode()
			cs = append(cs, p.(event.Compact))
		}
	}
	return cs
}

// TestCompactionKilled kills the harness (SIGKILL) while the summary of
// `harness run --compact` streams: the compaction event is never half
// written, the reopened log is valid (the compaction's turn closed as
// interrupted, no context/compact), and the session continues — and then
// compacts on demand.
func TestCompactionKilled(t *testing.T) {
	t.Parallel()
	bin, pluginDir := buildHarness(t)
	state := t.TempDir()
	sessions := sessionsOf(t, state)
	env := sessions.env(map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": pluginDir, "HARNESS_PROVIDER": "script"})
	id := firstTurn(t, env)

	slow := writeScript(t, `{"text":"`+strings.Repeat("summary ", 400)+`","delayMs":20}`)
	cmd := exec.Command(bin, "run", "--compact", "--session", id)
	cmd.Env = append(sessions.environ(installedEnv(state)), "HARNESS_PLUGIN_DIR="+pluginDir, "HARNESS_PROVIDER=script", "HARNESS_SCRIPT="+slow)
	var out logtest.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "Compacting context") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no compaction started:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // well into the summary's stream
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if cs := compactions(sessions.events(t, id)); len(cs) > 0 {
		t.Fatalf("a compaction was logged though the process died while summarizing: %+v", cs)
	}

	// On a shared store the dead run's lease holds the session until it
	// expires (HARNESS_STORE_LEASE 2s): the next run is refused, naming
	// the holder, until then.
	env["HARNESS_SCRIPT"] = writeScript(t, `{"text":"two","expect":{"contains":["first","second"]}}`)
	for deadline := time.Now().Add(10 * time.Second); ; {
		code, out, errOut := harness(t, env, "run", "--session", id, "second")
		if code == 0 {
			break
		}
		if sessions.url == "" || !strings.Contains(errOut, "after its lease expires") || time.Now().After(deadline) {
			t.Fatalf("the session does not continue after the kill: exit %d\n%s\n%s", code, out, errOut)
		}
		time.Sleep(250 * time.Millisecond)
	}
	env["HARNESS_SCRIPT"] = writeScript(t, `{"text":"We said first and second.","expect":{"lastContains":"<transcript>"}}`)
	code, outText, errOut := harness(t, env, "run", "--compact", "--session", id)
	if code != 0 || !strings.Contains(outText, "Compacting context") || !strings.Contains(outText, "done: ~") {
		t.Fatalf("compact: exit %d\n%s\n%s", code, outText, errOut)
	}
	s := sessions.open(t, id)
	var reasons []event.Reason
	compacts := 0
	for _, ev := range s.Events() {
		switch ev.Type {
		case event.TypeTurnEnd:
			p, _ := ev.Decode()
			reasons = append(reasons, p.(event.TurnEnd).Reason)
		case event.TypeCompact:
			compacts++
		}
	}
	want := []event.Reason{event.ReasonCompleted, event.ReasonInterrupted, event.ReasonCompleted, event.ReasonCompleted}
	if fmt.Sprint(reasons) != fmt.Sprint(want) || compacts != 1 {
		t.Errorf("turns ended %v with %d compactions; want %v and 1", reasons, compacts, want)
	}
	if m := s.Messages(); !strings.Contains(m[0].Text, "We said first and second.") {
		t.Errorf("history after compact starts %q", m[0].Text)
	}
}

// TestCompactCommandCountsTools: `harness run --compact` counts what the
// next request carries — the system prompt naming the tools, and the
// tools' specs — as /compact in a turn does, so the two record the same
// context after the compaction (before, --compact opened no tools and
// logged a gauge thousands of tokens short).
func TestCompactCommandCountsTools(t *testing.T) {
	t.Parallel()
	_, pluginDir := buildHarness(t)
	after := func(how ...string) int {
		state := t.TempDir()
		sessions := sessionsOf(t, state)
		env := sessions.env(map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": pluginDir, "HARNESS_PROVIDER": "script"})
		id := firstTurn(t, env)
		env["HARNESS_SCRIPT"] = writeScript(t, `{"text":"We said first.","expect":{"lastContains":"<transcript>"}}`)
		if code, out, errOut := harness(t, env, append([]string{"run", "--session", id}, how...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", how, code, out, errOut)
		}
		cs := compactions(sessions.events(t, id))
		if len(cs) == 0 {
			t.Fatalf("%v logged no compaction", how)
		}
		return cs[0].TokensAfter
	}
	flag, command := after("--compact"), after("/compact")
	if flag != command {
		t.Errorf("context after harness run --compact: %d tokens; after /compact: %d; want the same", flag, command)
	}
}

// TestFixedContextShown: `harness plugins` lists each tool's schema size
// in tokens, the largest first, and their sum; with a window the built-in
// tools fill more than half of, `harness run`'s header is followed by one
// warning line naming the biggest tools.
func TestFixedContextShown(t *testing.T) {
	t.Parallel()
	plugins := testPlugins(t)
	out := listPlugins(t, plugins)
	sizes := regexp.MustCompile(`(?m)^ *(\d+) +(\S+) +(\S+) *$`).FindAllStringSubmatch(out, -1)
	if len(sizes) < 10 || !strings.Contains(out, "(all, in every request)") {
		t.Fatalf("harness plugins lists %d tool sizes:\n%s", len(sizes), out)
	}
	for i := 1; i < len(sizes); i++ {
		if a, b := sizes[i-1][1], sizes[i][1]; len(a) < len(b) || len(a) == len(b) && a < b {
			t.Errorf("tool sizes not the largest first: %s before %s", sizes[i-1][0], sizes[i][0])
		}
	}
	state := t.TempDir()
	env := sessionsOf(t, state).env(map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": plugins, "HARNESS_PROVIDER": "script",
		"HARNESS_CONTEXT_WINDOW": "4096", "HARNESS_SCRIPT": writeScript(t, `{"text":"ok"}`)})
	code, _, errOut := harness(t, env, "run", "hi")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	warn := regexp.MustCompile(`(?m)^warning: the system prompt and tools take ~\d+ of the 4096-token context window \(\d+ %\).*; biggest tools: (\S+) ~\d+, .*$`).FindStringSubmatch(errOut)
	if warn == nil || warn[1] != sizes[0][2] {
		t.Errorf("no warning naming the biggest tool %s:\n%s", sizes[0][2], errOut)
	}
}
