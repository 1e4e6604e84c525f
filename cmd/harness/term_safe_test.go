package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// The terminal's size in the tests: the screen is rendered at the same
// width, and tall enough that nothing scrolls away.
const (
	ptyCols    = 160
	screenRows = 400
)

// Hostile strings: a model, a tool's output and an edit carry them.
const (
	osc52     = "\x1b]52;c;cm0gLXJmIH4K\x07"                                   // writes "rm -rf ~" to the clipboard
	osc8      = "\x1b]8;id=a b;https://evil.example/\x1b\\click\x1b]8;;\x1b\\" // a link, cut at the space between deltas
	eraseUp   = "\x1b[1A\x1b[2K\r"                                             // up one line, erase it
	clearHome = "\x1b[2J\x1b[H"
	bidi      = "\u202e\u200b"
)

// forgedCommand is the attack of issue 26: after the comment sign, escapes
// erase harness's "→ bash" line and question and draw a harmless call and
// question in their place.
var forgedCommand = "rm -rf victim #" + eraseUp + eraseUp + `→ bash {"command":"ls -la"}` + "\n\x1b[2K" +
	"Allow bash: ls -la? [y]es / [n]o / [a]lways for `ls …`: " + strings.Repeat(" ", 150) + "TAIL-SHOWN\x1b[8m"

// harnessStyle is what harness writes of its own: SGR styles.
var harnessStyle = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// ptyOutput is what a process wrote to its terminal.
type ptyOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *ptyOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *ptyOutput) bytes() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return bytes.Clone(o.buf.Bytes())
}

// onPTY runs cmd with a pseudo-terminal as its stdin, stdout and stderr;
// when answer is set it types it once the output holds prompt. It returns
// all the process wrote and its exit code.
func onPTY(t *testing.T, cmd *exec.Cmd, prompt, answer string) ([]byte, int) {
	t.Helper()
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: ptyCols})
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var out ptyOutput
	copied := make(chan struct{})
	go func() { defer close(copied); io.Copy(&out, ptmx) }() // ends with EIO when the last writer closes
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(120 * time.Second)
	if answer != "" {
	asking:
		for {
			select {
			case err := <-exited:
				t.Fatalf("harness ended (%v) before asking %q:\n%q", err, prompt, out.bytes())
			case <-deadline:
				cmd.Process.Kill()
				t.Fatalf("no %q after 120 s:\n%q", prompt, out.bytes())
			case <-time.After(50 * time.Millisecond):
				if bytes.Contains(out.bytes(), []byte(prompt)) {
					break asking
				}
			}
		}
		if _, err := io.WriteString(ptmx, answer); err != nil {
			t.Fatal(err)
		}
	}
	var werr error
	select {
	case werr = <-exited:
	case <-deadline:
		cmd.Process.Kill()
		t.Fatalf("harness still running after 120 s:\n%q", out.bytes())
	}
	select {
	case <-copied:
	case <-time.After(10 * time.Second): // something the process started holds the terminal
	}
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(werr, &ee) {
		code = ee.ExitCode()
	} else if werr != nil {
		t.Fatal(werr)
	}
	return out.bytes(), code
}

// screen renders raw terminal output with a terminal emulator and returns
// its lines.
func screen(t *testing.T, raw []byte) []string {
	t.Helper()
	emu := vt.NewEmulator(ptyCols, screenRows)
	drained := make(chan struct{})
	go func() { defer close(drained); io.Copy(io.Discard, emu) }() // the emulator's answers to queries
	defer func() {
		// the pipe's end, not emu.Close, which races with Read
		emu.InputPipe().(io.Closer).Close()
		<-drained
	}()
	if _, err := emu.Write(raw); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(emu.String(), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// wantOnlyHarnessStyles fails t when raw output holds an escape other than
// harness's own SGR styles: no OSC (52's clipboard, 8's links), no CSI
// that moves the cursor or erases, no DCS, APC, C1 control.
func wantOnlyHarnessStyles(t *testing.T, what string, raw []byte) {
	t.Helper()
	for _, bad := range []struct{ name, seq string }{
		{"OSC 52", "\x1b]52"}, {"OSC 8", "\x1b]8;"}, {"cursor up", "\x1b[1A"}, {"erase line", "\x1b[2K"}, {"clear screen", "\x1b[2J"},
		{"DCS", "\x1bP"}, {"APC", "\x1b_"}, {"C1 CSI", "\u009b"}, {"RLO", "\u202e"}, {"zero-width space", "\u200b"},
	} {
		if bytes.Contains(raw, []byte(bad.seq)) {
			t.Errorf("%s: the terminal got %s (%q)", what, bad.name, bad.seq)
		}
	}
	rest := harnessStyle.ReplaceAll(raw, nil)
	if i := bytes.IndexByte(rest, 0x1b); i >= 0 {
		t.Errorf("%s: an escape that is not harness's style reached the terminal: %q", what, rest[i:min(len(rest), i+20)])
	}
}

func scriptLine(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// termEnv is the environment of harness run on a colour terminal with the
// script provider and the real plugins.
func termEnv(state, plugins, script string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HARNESS_") && !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") {
			env = append(env, kv)
		}
	}
	return append(append(env, "TERM=xterm-256color", "HARNESS_STATE_DIR="+state, "HARNESS_PLUGIN_DIR="+plugins,
		"HARNESS_PROVIDER=script", "HARNESS_SCRIPT="+script), extra...)
}

// TestRunTerminalForgery is issue 26's first attack: on a terminal, a
// model sends escape sequences in its text and thinking, in a bash command
// built to erase harness's question and draw a harmless one, in a tool's
// output and in an edit. The screen, rendered by a terminal emulator,
// shows the real command in the question and no forged line; the raw
// output holds no escape but harness's styles; the user answers n and
// victim/ is still there. The hostile prompt then goes through harness
// sessions, and hostile text through two error paths.
func TestRunTerminalForgery(t *testing.T) {
	t.Parallel()
	bin, plugins := buildHarness(t)
	cwd, state, conf := t.TempDir(), t.TempDir(), t.TempDir()
	victim := filepath.Join(cwd, "victim")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(victim, "precious"), []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "main.go"), []byte("package main\n\nvar x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(conf, "permissions.json")
	if err := os.WriteFile(rules, []byte(`{"rules":[{"tool":"bash","prefix":"printf","action":"allow"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	printf := `printf 'out \033]52;c;cm0gLXJmIH4K\007 \033[1A\033[2Kgone \033]8;;https://evil.example/\033\\link\033]8;;\033\\ \302\233' ; printf '2J\n'`
	script := writeScript(t,
		scriptLine(t, map[string]any{
			"reasoning": "thinking " + osc8 + eraseUp,
			"text":      "Here is the plan." + osc52 + " " + osc8 + clearHome + eraseUp + "\x1bP+q544e\x1b\\\x1b_apc\x1b\\ " + bidi + "\n",
			"toolCalls": []any{map[string]any{"id": "r", "name": "read", "args": map[string]string{"file_path": "main.go"}}},
		}),
		scriptLine(t, map[string]any{"toolCalls": []any{map[string]any{"id": "e", "name": "edit", "args": map[string]string{
			"file_path": "main.go", "old_string": "var x = 1", "new_string": "var x = 2 // " + eraseUp + osc52}}}}),
		scriptLine(t, map[string]any{"toolCalls": []any{map[string]any{"id": "w", "name": "write", "args": map[string]string{
			"file_path": "notes" + osc52 + eraseUp + ".txt", "content": "hello " + osc8 + "\n"}}}}),
		scriptLine(t, map[string]any{"toolCalls": []any{map[string]any{"id": "p", "name": "bash", "args": map[string]string{
			"command": printf, "description": "print " + eraseUp + "output"}}}}),
		scriptLine(t, map[string]any{"toolCalls": []any{map[string]any{"id": "b", "name": "bash", "args": map[string]string{
			"command": forgedCommand, "description": "list the files"}}}}),
		scriptLine(t, map[string]any{"text": "All done."}),
	)
	prompt := "fix it " + osc52 + clearHome + bidi
	cmd := exec.Command(bin, "run", "--mode", "accept-edits", prompt)
	cmd.Dir = cwd
	cmd.Env = termEnv(state, plugins, script, "HARNESS_PERMISSIONS_FILE="+rules, "XDG_CONFIG_HOME="+conf)
	raw, code := onPTY(t, cmd, "[n]o", "n\r")
	lines := screen(t, raw)
	shown := strings.Join(lines, "\n")
	if code != exitOK {
		t.Errorf("harness run exited %d", code)
	}
	wantOnlyHarnessStyles(t, "harness run", raw)

	// The question shows the real command, whole; it is the last thing
	// asked, and nothing drew another.
	var question int = -1
	for i, l := range lines {
		if strings.Contains(l, "[y]es / [n]o") {
			question = i
		}
		for _, forged := range []string{`→ bash {"command":"ls -la"}`, "Allow bash: ls -la?"} {
			if strings.HasPrefix(strings.TrimSpace(l), forged) {
				t.Errorf("the screen shows a forged line %q:\n%s", l, shown)
			}
		}
	}
	if question < 0 {
		t.Fatalf("no question on the screen:\n%s", shown)
	}
	if q := lines[question]; !strings.HasPrefix(q, "Allow this bash command? [y]es / [n]o") || !strings.HasSuffix(q, ": n") {
		t.Errorf("the question's line is %q:\n%s", q, shown)
	}
	above := strings.Join(lines[:question], "\n")
	wholeCommand := strings.ReplaceAll(strings.Join(lines[:question], ""), "\n", "")
	for _, want := range []string{
		`rm -rf victim #\x1b[1A\x1b[2K\r\x1b[1A\x1b[2K\r→ bash {"command":"ls -la"}\n\x1b[2KAllow bash: ls -la?`,
		"TAIL-SHOWN" + `\x1b[8m`,
	} {
		if !strings.Contains(wholeCommand, want) {
			t.Errorf("the question does not show %q of the command:\n%s", want, above)
		}
	}
	for _, want := range []string{
		`→ rm -rf victim #\x1b[1A\x1b[2K `,                           // harness's line about the call: the declared title, escaped
		`Here is the plan.\x1b]52;c;cm0gLXJmIH4K\x07 \x1b]8;id=a b;`, // the text
		`thinking \x1b]8;id=a b;https://evil.example/`,               // the thinking
		`+var x = 2 // \x1b[1A\x1b[2K\r\x1b]52;c;`,                   // the edit's diff
		`notes\x1b]52;c;cm0gLXJmIH4K\a\x1b[1A\x1b[2K\r.txt"`,         // a file name in a title (fs quotes it)
		`+hello \x1b]8;id=a b;https://evil.example/`,                 // a new file's diff
		"out  gone link", // bash's output (the plugin drops escapes itself)
		"All done.",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("the screen lacks %q:\n%s", want, shown)
		}
	}
	if b, err := os.ReadFile(filepath.Join(victim, "precious")); err != nil || string(b) != "keep me\n" {
		t.Errorf("victim/precious after answering n: %q, %v", b, err)
	}

	// harness sessions shows the hostile first prompt escaped.
	sessions := exec.Command(bin, "sessions")
	sessions.Env = termEnv(state, plugins, script)
	raw, code = onPTY(t, sessions, "", "")
	if code != exitOK {
		t.Errorf("harness sessions exited %d:\n%q", code, raw)
	}
	wantOnlyHarnessStyles(t, "harness sessions", raw)
	if s := strings.Join(screen(t, raw), ""); !strings.Contains(s, `fix it \x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\x1b[H\u202e\u200b`) {
		t.Errorf("harness sessions does not show the first prompt escaped:\n%s", s)
	}

	// Error paths: a session id that is not one, and a provider's error.
	bad := exec.Command(bin, "run", "--session", "nope"+osc52+eraseUp, "hi")
	bad.Env = termEnv(state, plugins, script)
	raw, code = onPTY(t, bad, "", "")
	if code == exitOK || !bytes.Contains(raw, []byte(`nope\x1b]52;c;cm0gLXJmIH4K`)) {
		t.Errorf("harness run --session with a hostile id: exit %d, output:\n%q", code, raw)
	}
	wantOnlyHarnessStyles(t, "harness run --session <hostile id>", raw)
	failing := writeScript(t, scriptLine(t, map[string]any{"text": "partial " + osc8, "error": "upstream said " + osc52 + eraseUp + "no"}))
	fails := exec.Command(bin, "run", "--max-steps", "1", "hi")
	fails.Dir = cwd
	fails.Env = termEnv(state, plugins, failing, "HARNESS_PERMISSIONS_FILE="+rules, "XDG_CONFIG_HOME="+conf)
	raw, code = onPTY(t, fails, "", "")
	if code == exitOK || !bytes.Contains(raw, []byte(`upstream said \x1b]52;c;cm0gLXJmIH4K\x07\x1b[1A\x1b[2K\rno`)) {
		t.Errorf("a provider's hostile error: exit %d, output:\n%q", code, raw)
	}
	wantOnlyHarnessStyles(t, "a provider's error", raw)
}

// TestModelsShowHostileEscaped: harness models shows what a server and
// the settings name a model, and a server's error, escaped.
func TestModelsShowHostileEscaped(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/ok/models", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"data": []map[string]string{{"id": "good-1"}, {"id": "evil" + osc52 + eraseUp + bidi}}})
	})
	mux.HandleFunc("/bad/models", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "overloaded"+osc8+clearHome)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	for name, tc := range map[string]struct {
		env        map[string]string
		args       []string
		code       int
		want, from string // want in the output named from
	}{
		"remote": {env: map[string]string{"HARNESS_PROVIDER": "openai", "HARNESS_BASE_URL": srv.URL + "/ok", "HARNESS_MODEL": "good-1"},
			args: []string{"models", "--remote"}, want: `evil\x1b]52;c;cm0gLXJmIH4K\x07\x1b[1A\x1b[2K\r\u202e\u200b`, from: "stdout"},
		"remote error": {env: map[string]string{"HARNESS_PROVIDER": "openai", "HARNESS_BASE_URL": srv.URL + "/bad", "HARNESS_MODEL": "good-1"},
			args: []string{"models", "--remote"}, code: exitFailed, want: `overloaded\x1b]8;id=a b;https://evil.example/`, from: "stderr"},
		"settings": {env: map[string]string{"HARNESS_PROVIDER": "openai", "HARNESS_BASE_URL": srv.URL + "/ok",
			"HARNESS_MODEL": "good-1", "HARNESS_MODELS": "m" + osc52 + eraseUp},
			args: []string{"models"}, want: `m\x1b]52;c;cm0gLXJmIH4K\x07\x1b[1A\x1b[2K `, from: "stdout"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := harness(t, tc.env, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			wantOnlyHarnessStyles(t, "stdout", []byte(stdout))
			wantOnlyHarnessStyles(t, "stderr", []byte(stderr))
			if got := map[string]string{"stdout": stdout, "stderr": stderr}[tc.from]; !strings.Contains(got, tc.want) {
				t.Errorf("%s lacks %q:\n%s", tc.from, tc.want, got)
			}
		})
	}
}
