//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	plugintest.Conformance(t, serve(t).c)
}

// TestSpec pins what the model and the host see.
func TestSpec(t *testing.T) {
	t.Parallel()
	d, err := serve(t).c.Describe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "bash" || d.Version == "" || len(d.EventTypes) != 0 {
		t.Errorf("plugin %s %s, events %v", d.Name, d.Version, d.EventTypes)
	}
	type flags struct{ safe, permission bool }
	want := map[string]flags{toolBash: {false, true}, toolOutput: {true, false}, toolKill: {false, true}}
	if len(d.Tools) != len(want) {
		t.Fatalf("got %d tools, want %d", len(d.Tools), len(want))
	}
	for _, tool := range d.Tools {
		w, ok := want[tool.Name]
		if !ok || tool.ConcurrencySafe != w.safe || tool.NeedsPermission != w.permission {
			t.Errorf("tool %s: concurrency-safe %v, needs permission %v", tool.Name, tool.ConcurrencySafe, tool.NeedsPermission)
		}
		var s struct {
			Properties           map[string]json.RawMessage
			Required             []string
			AdditionalProperties *bool
		}
		if err := json.Unmarshal(tool.Schema, &s); err != nil {
			t.Fatal(err)
		}
		if s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("tool %s accepts unknown properties", tool.Name)
		}
		if tool.Name == toolBash {
			for _, p := range []string{"command", "description", "timeout_ms", "workdir", "run_in_background"} {
				if s.Properties[p] == nil {
					t.Errorf("bash has no parameter %s", p)
				}
			}
			if strings.Join(s.Required, ",") != "command,description" {
				t.Errorf("bash requires %v", s.Required)
			}
			for _, rule := range []string{"stdin is /dev/null", "no terminal", "non-interactive", "120000", "600000",
				"30,000 characters", "full output", "run_in_background", "bash_output", "bash_kill", "[exit code: N]", "workdir"} {
				if !strings.Contains(tool.Description, rule) {
					t.Errorf("the description lacks %q", rule)
				}
			}
		}
	}
}

// TestBash covers the foreground calls that end by themselves.
func TestBash(t *testing.T) {
	t.Parallel()
	f := serve(t)
	if err := os.Mkdir(filepath.Join(f.cwd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.cwd, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		want    string // the content, with {cwd} for the session's cwd
		isError bool
	}{
		{name: "echo", args: map[string]any{"command": "echo hello"}, want: "hello\n"},
		{name: "no output", args: map[string]any{"command": "true"}, want: "(no output)"},
		{name: "no final newline", args: map[string]any{"command": "printf abc; exit 2"}, want: "abc\n[exit code: 2]"},
		{name: "non-zero exit is not an error", args: map[string]any{"command": "echo oops; exit 3"}, want: "oops\n[exit code: 3]"},
		{name: "exit without output", args: map[string]any{"command": "false"}, want: "(no output)\n[exit code: 1]"},
		{name: "killed by a signal", args: map[string]any{"command": "kill -SEGV $$"}, want: "(no output)\n[killed by signal: SIGSEGV]"},
		{name: "stderr merged in order", args: map[string]any{"command": "echo a; echo b >&2; echo c; echo d >&2"}, want: "a\nb\nc\nd\n"},
		{name: "cwd by default", args: map[string]any{"command": "pwd"}, want: "{cwd}\n"},
		{name: "relative workdir", args: map[string]any{"command": "pwd", "workdir": "sub"}, want: "{cwd}/sub\n"},
		{name: "absolute workdir", args: map[string]any{"command": "pwd", "workdir": "{cwd}/sub/.."}, want: "{cwd}\n"},
		{name: "missing workdir", args: map[string]any{"command": "pwd", "workdir": "nope"}, want: "Error: workdir {cwd}/nope does not exist", isError: true},
		{name: "workdir is a file", args: map[string]any{"command": "pwd", "workdir": "file"}, want: "Error: workdir {cwd}/file is not a directory", isError: true},
		{name: "stdin is /dev/null", args: map[string]any{"command": `cat; read -r x; echo "[$x] $?"; readlink /proc/self/fd/0`}, want: "[] 1\n/dev/null\n"},
		{name: "no terminal", args: map[string]any{"command": "test -t 0 || echo no tty; exec 3</dev/tty"},
			want: "no tty\nbash: line 1: /dev/tty: No such device or address\n[exit code: 1]"},
		{name: "own session", args: map[string]any{"command": `ps -o sid=,pgid=,pid= -p $$ | awk '{print ($1==$3 && $2==$3)}'`}, want: "1\n"},
		{name: "fresh shell", args: map[string]any{"command": "echo ${FOO:-unset}; FOO=1"}, want: "unset\n"},
		{name: "fixed environment", args: map[string]any{"command": `echo $NO_COLOR $TERM $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT`}, want: "1 dumb cat cat 0\n"},
		{name: "control characters", args: map[string]any{"command": `printf 'a\0b\033[1;31mred\033[0m\033]0;title\007 \x7f\r\nx\ry\tz\n'`}, want: "a␀bred ␡\nx\ny\tz\n"},
		{name: "UTF-8 kept", args: map[string]any{"command": "echo 'héllo, 世界 🎉'"}, want: "héllo, 世界 🎉\n"},
		{name: "invalid UTF-8", args: map[string]any{"command": `printf 'a\xffb\xe4\xb8c\xc0\xafd\n'`}, want: "a\uFFFDb\uFFFDc\uFFFD\uFFFDd\n"},
		{name: "empty command", args: map[string]any{"command": "  "}, want: "Error: invalid command: expected a non-empty string", isError: true},
		{name: "empty description", args: map[string]any{"command": "true", "description": ""}, want: "Error: invalid description: expected a non-empty string", isError: true},
		{name: "no command", args: map[string]any{}, want: `Error: invalid arguments: missing required property "command"`, isError: true},
		{name: "unknown argument", args: map[string]any{"command": "true", "cwd": "/"}, want: `Error: invalid arguments: unknown property "cwd"`, isError: true},
		{name: "timeout zero", args: map[string]any{"command": "true", "timeout_ms": 0},
			want: "Error: invalid timeout_ms: expected a positive number of milliseconds, got 0", isError: true},
		{name: "timeout too long", args: map[string]any{"command": "true", "timeout_ms": 600001},
			want: "Error: invalid timeout_ms: 600001 is above the maximum of 600000 (10 minutes); use run_in_background for longer commands", isError: true},
		{name: "timeout at the maximum", args: map[string]any{"command": "echo ok", "timeout_ms": 600000}, want: "ok\n"},
		{name: "sandbox not off", args: map[string]any{"command": "true", "sandbox": "on", "justification": "x"},
			want: `Error: invalid arguments: sandbox: "on" is not one of "off"`, isError: true},
		{name: "sandbox off without justification", args: map[string]any{"command": "true", "sandbox": "off"},
			want: `Error: invalid justification: sandbox "off" needs a one-line justification telling the user why the command must run outside the sandbox`, isError: true},
		{name: "sandbox off, blank justification", args: map[string]any{"command": "true", "sandbox": "off", "justification": "  "},
			want: `Error: invalid justification: sandbox "off" needs a one-line justification telling the user why the command must run outside the sandbox`, isError: true},
		{name: "justification without sandbox off", args: map[string]any{"command": "true", "justification": "because"},
			want: `Error: invalid justification: it goes with sandbox "off" only; leave it out to run in the sandbox`, isError: true},
		{name: "justification of two lines", args: map[string]any{"command": "true", "sandbox": "off", "justification": "one\ntwo"},
			want: "Error: invalid justification: expected one line of at most 500 bytes", isError: true},
		{name: "justification too long", args: map[string]any{"command": "true", "sandbox": "off", "justification": strings.Repeat("x", 501)},
			want: "Error: invalid justification: expected one line of at most 500 bytes", isError: true},
		{name: "timeout not an integer", args: map[string]any{"command": "true", "timeout_ms": 1.5},
			want: "Error: invalid arguments: timeout_ms: expected integer, got number", isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := map[string]any{}
			for k, v := range tt.args {
				if s, ok := v.(string); ok {
					v = strings.ReplaceAll(s, "{cwd}", f.cwd)
				}
				args[k] = v
			}
			res := f.exec(t, call{args: args})
			want := strings.ReplaceAll(tt.want, "{cwd}", f.cwd)
			if res.Content != want || res.IsError != tt.isError {
				t.Errorf("got (%q, isError %v)\nwant (%q, isError %v)", res.Content, res.IsError, want, tt.isError)
			}
		})
	}
}

// TestSecrets: secrets and the host's and go-plugin's variables do not
// reach commands; the rest of the environment does.
func TestSecrets(t *testing.T) {
	t.Parallel()
	f := serve(t, append(env(),
		"HARNESS_API_KEY=k1", "DEEPSEEK_API_KEY=k2", "FOO_TOKEN=k3", "MY_PASSWORD=k4", "SOME_SECRET=k5",
		"github_token=k6", "AWS_SECRET_ACCESS_KEY=k7", "HARNESS_STATE_DIR=/x", pluginapi.MagicCookieKey+"=cookie",
		"PLUGIN_MIN_PORT=1", "HARNESS_PLUGIN_LOG_LEVEL=debug", "PAGER=less", "KEEP_ME=yes")...)
	res := f.sh(t, "env")
	checkEnv(t, res.Content)
}

func checkEnv(t *testing.T, out string) {
	t.Helper()
	vars := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = v
		}
	}
	for _, k := range []string{"HARNESS_API_KEY", "DEEPSEEK_API_KEY", "FOO_TOKEN", "MY_PASSWORD", "SOME_SECRET", "github_token",
		"AWS_SECRET_ACCESS_KEY", "HARNESS_STATE_DIR", pluginapi.MagicCookieKey, "PLUGIN_MIN_PORT", "HARNESS_PLUGIN_LOG_LEVEL"} {
		if _, ok := vars[k]; ok {
			t.Errorf("the command sees %s", k)
		}
	}
	for k, v := range map[string]string{"NO_COLOR": "1", "TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "PATH": os.Getenv("PATH")} {
		if vars[k] != v {
			t.Errorf("the command sees %s=%q, want %q", k, vars[k], v)
		}
	}
	if strings.Contains(out, "k1") || strings.Contains(out, "cookie") {
		t.Errorf("a secret value leaked:\n%s", out)
	}
}

func TestEnv(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"HARNESS_API_KEY": true, "deepseek_api_key": true, "GH_TOKEN": true, "DB_Password": true, "MY_PASSWD": true,
		"CLIENT_SECRET": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "HARNESS_PLUGIN_MAGIC_COOKIE": true, "harness_x": true,
		"PLUGIN_PROTOCOL_VERSIONS": true, "PATH": false, "HOME": false, "SSH_AUTH_SOCK": false, "GOPATH": false, "LANG": false,
	} {
		if hidden(name) != want {
			t.Errorf("hidden(%s) = %v", name, !want)
		}
	}
	got := commandEnv([]string{"A=1", "TERM=xterm-256color", "NO_COLOR=", "MY_KEY=x", "=weird", "B=2=3"})
	want := []string{"A=1", "B=2=3", "NO_COLOR=1", "TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("commandEnv = %q\nwant %q", got, want)
	}
}

// TestTimeout: at the timeout the whole command goes — the shell and its
// children, background ones too — and the output so far is kept.
func TestTimeout(t *testing.T) {
	t.Parallel()
	f := serve(t)
	d1, d2 := sleepArg(), sleepArg()
	var res pluginapi.Result
	within(t, 1500*time.Millisecond, "a call timing out after 300 ms", func() {
		res = f.exec(t, call{args: map[string]any{"command": "echo hi; sleep " + d1 + " & sleep " + d2, "timeout_ms": 300}})
	})
	sleepersGone(t, time.Second, d1, d2)
	want := "hi\n[timed out after 300 ms]\n[killed by signal: SIGTERM]"
	if res.Content != want || res.IsError {
		t.Errorf("got (%q, %v), want %q", res.Content, res.IsError, want)
	}
}

// TestTimeoutStubborn: a command that ignores SIGTERM gets SIGKILL 2 s
// later.
func TestTimeoutStubborn(t *testing.T) {
	t.Parallel()
	f := serve(t)
	d1, d2 := sleepArg(), sleepArg()
	var res pluginapi.Result
	took := within(t, 3*time.Second, "a call ignoring SIGTERM", func() {
		res = f.exec(t, call{args: map[string]any{"command": "trap '' TERM; sleep " + d1 + " & sleep " + d2, "timeout_ms": 200}})
	})
	if took < 2*time.Second {
		t.Errorf("took %v: SIGKILL came before the 2 s grace", took)
	}
	sleepersGone(t, time.Second, d1, d2)
	if !strings.HasSuffix(res.Content, "[timed out after 200 ms]\n[killed by signal: SIGKILL]") {
		t.Errorf("got %q", res.Content)
	}
}

// TestLeftovers: what a finished command leaves running (a double fork)
// is stopped, and a grandchild holding the output pipe does not hang the
// call.
func TestLeftovers(t *testing.T) {
	t.Parallel()
	f := serve(t)
	d := sleepArg()
	var res pluginapi.Result
	within(t, time.Second, "a call leaving a child with its stdout", func() {
		res = f.sh(t, "(sleep "+d+" &); echo done")
	})
	sleepersGone(t, 3*time.Second, d)
	if res.Content != "done\n" {
		t.Errorf("got %q", res.Content)
	}
}

// TestEscapedHolder: a process that left the group (setsid) but holds
// the pipe delays the call by the drain deadline only, and is stopped
// too.
func TestEscapedHolder(t *testing.T) {
	t.Parallel()
	f := serve(t)
	d := sleepArg()
	var res pluginapi.Result
	within(t, drainTimeout+time.Second, "a call whose pipe a daemon holds", func() {
		res = f.sh(t, "setsid sleep "+d+" & echo done")
	})
	sleepersGone(t, 3*time.Second, d)
	if res.Content != "done\n" {
		t.Errorf("got %q", res.Content)
	}
}

// TestCancel: a cancelled call ends within 3 s, even when the command
// ignores SIGTERM, with "Error: command aborted" and the output so far.
func TestCancel(t *testing.T) {
	t.Parallel()
	f := serve(t)
	d := sleepArg()
	req := f.req(t, call{args: map[string]any{"command": "trap '' TERM; echo started; sleep " + d}})
	started := make(chan struct{}, 1)
	go func() {
		<-started
		_ = f.c.Cancel(t.Context(), req.CallID)
	}()
	var res pluginapi.Result
	within(t, 3*time.Second, "a cancelled call", func() {
		var err error
		res, err = f.c.Execute(t.Context(), req, func(s string) {
			select {
			case started <- struct{}{}:
			default:
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	if !res.IsError || !strings.HasPrefix(res.Content, "Error: command aborted\nstarted") {
		t.Errorf("got (%q, %v)", res.Content, res.IsError)
	}
	sleepersGone(t, time.Second, d)
}

// TestHugeOutput: 100 MB of output is capped for the model, with its
// first third and last two thirds, while the spill file in the session's
// folder holds all of it.
func TestHugeOutput(t *testing.T) {
	t.Parallel()
	f := serve(t)
	const n = 100_000_000
	res := f.sh(t, "printf start; head -c 100000000 /dev/zero | tr '\\0' a | head -c 99999992; printf end")
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got := utf8.RuneCountInString(res.Content); got > maxChars {
		t.Errorf("the model sees %d characters, more than %d", got, maxChars)
	}
	head, rest, ok := strings.Cut(res.Content, "\n[… ")
	marker, tail, ok2 := strings.Cut(rest, "]\n")
	if !ok || !ok2 {
		t.Fatalf("no cut marker in %.200q…", res.Content)
	}
	if !strings.HasPrefix(head, "startaaa") || strings.Trim(head[5:], "a") != "" || !strings.HasSuffix(tail, "aaaend") {
		t.Errorf("head %.20q… tail …%.20q", head, tail[max(len(tail)-20, 0):])
	}
	if len(tail) < 2*len(head)-2 || len(head)+len(tail) < maxChars-300 {
		t.Errorf("kept %d + %d characters", len(head), len(tail))
	}
	dir := filepath.Join(f.state, "sessions", "s1")
	path := spillIn(t, marker)
	if filepath.Dir(path) != dir {
		t.Errorf("spill file %s is not in the session's folder %s", path, dir)
	}
	wantMarker := "99,970," // about 99,970,000 characters cut
	if !strings.HasPrefix(marker, wantMarker) || !strings.Contains(marker, "(100,000,000 bytes)") {
		t.Errorf("marker %q", marker)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != n || fi.Mode().Perm() != 0o600 {
		t.Errorf("spill file: %d bytes, mode %v; want %d, 0600", fi.Size(), fi.Mode(), n)
	}
	if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("session folder: %v, %v", di.Mode(), err)
	}
}

// spillIn finds the spill file in a cut marker.
func spillIn(t testing.TB, marker string) string {
	t.Helper()
	_, where, ok := strings.Cut(marker, "full output: ")
	if !ok {
		t.Fatalf("no spill file in %q", marker)
	}
	path, _, _ := strings.Cut(where, " (")
	return path
}

// TestSpill: an output just over the cap is cut, its spill file is exact;
// one under the cap leaves no file.
func TestSpill(t *testing.T) {
	t.Parallel()
	f := serve(t)
	res := f.sh(t, "seq 1 8000") // 38,894 bytes
	head, rest, _ := strings.Cut(res.Content, "\n[… ")
	marker, tail, _ := strings.Cut(rest, "]\n")
	if !strings.HasPrefix(head, "1\n2\n3\n") || !strings.HasSuffix(tail, "7999\n8000\n") {
		t.Errorf("got %.30q … %.30q", head, tail[max(len(tail)-30, 0):])
	}
	b, err := os.ReadFile(spillIn(t, marker))
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for i := 1; i <= 8000; i++ {
		want += itoa(i) + "\n"
	}
	if string(b) != want {
		t.Errorf("the spill file has %d bytes, want %d", len(b), len(want))
	}
	if utf8.RuneCountInString(res.Content) > maxChars {
		t.Errorf("%d characters", utf8.RuneCountInString(res.Content))
	}

	res = f.exec(t, call{id: "small", args: map[string]any{"command": "seq 1 5000; exit 1"}}) // 23,893 bytes
	if strings.Contains(res.Content, "cut") || !strings.HasSuffix(res.Content, "4999\n5000\n[exit code: 1]") {
		t.Errorf("got …%q", res.Content[len(res.Content)-40:])
	}
	entries, _ := filepath.Glob(filepath.Join(f.state, "sessions", "s1", "bash-small-*"))
	if len(entries) != 0 {
		t.Errorf("spill files of an uncut output: %v", entries)
	}
}

// TestBinary: random bytes become valid UTF-8 without controls.
func TestBinary(t *testing.T) {
	t.Parallel()
	f := serve(t)
	res := f.sh(t, "head -c 100000 /dev/urandom")
	if res.IsError || !utf8.ValidString(res.Content) {
		t.Fatalf("isError %v, valid UTF-8 %v", res.IsError, utf8.ValidString(res.Content))
	}
	for _, r := range res.Content {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7F && r <= 0x9F {
			t.Fatalf("control character %U in the result", r)
		}
	}
}

// TestProgress: output streams while the command runs, at most 10 chunks
// a second, and adds up to the beginning of the result.
func TestProgress(t *testing.T) {
	t.Parallel()
	f := serve(t)
	// The command prints its first line, then waits until the test has
	// seen that line as progress: the call cannot end before it, so the
	// progress was live, whatever the machine's load. Then it prints 19
	// lines 30 ms apart, which progress batches (at most one chunk every
	// liveEvery).
	seen := filepath.Join(t.TempDir(), "seen")
	cmd := "echo line 1; while [ ! -e " + seen + " ]; do sleep 0.01; done; " +
		"for i in $(seq 2 20); do echo line $i; sleep 0.03; done"
	req := f.req(t, call{args: map[string]any{"command": cmd, "timeout_ms": 60000}})
	var chunks []string
	start := time.Now()
	res, err := f.c.Execute(t.Context(), req, func(s string) {
		if len(chunks) == 0 {
			if err := os.WriteFile(seen, nil, 0o600); err != nil {
				t.Error(err)
			}
		}
		chunks = append(chunks, s)
	})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 2 {
		t.Fatalf("%d progress chunks over %v", len(chunks), elapsed)
	}
	// Batched: never more chunks than liveEvery periods, plus the first
	// and the last.
	if max := int(elapsed/liveEvery) + 2; len(chunks) > max {
		t.Errorf("%d chunks in %v: more than one every %v", len(chunks), elapsed, liveEvery)
	}
	if len(chunks) >= 20 {
		t.Errorf("%d chunks for 20 lines: progress is not batched", len(chunks))
	}
	if all := strings.Join(chunks, ""); !strings.HasPrefix(res.Content, all) || !strings.HasPrefix(all, "line 1\n") {
		t.Errorf("progress %q is not the start of %q", all, res.Content)
	}
	if !strings.Contains(res.Content, "line 20\n") {
		t.Errorf("the result lacks the last line: %q", res.Content)
	}
}

// TestProgressBounded: a flood is sent in bounded chunks.
func TestProgressBounded(t *testing.T) {
	t.Parallel()
	f := serve(t)
	req := f.req(t, call{args: map[string]any{"command": "for i in 1 2 3 4 5; do head -c 200000 /dev/zero | tr '\\0' x; sleep 0.15; done"}})
	var chunks []string
	if _, err := f.c.Execute(t.Context(), req, func(s string) { chunks = append(chunks, s) }); err != nil {
		t.Fatal(err)
	}
	if len(chunks) == 0 {
		t.Fatal("no progress")
	}
	for _, c := range chunks {
		if n := utf8.RuneCountInString(c); n > liveChars+100 {
			t.Errorf("a chunk of %d characters", n)
		}
	}
	if !strings.Contains(strings.Join(chunks, ""), "characters not shown live]") {
		t.Error("no note of what was skipped")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
