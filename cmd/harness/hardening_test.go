//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/internal/logtest"
)

// bashCall is a script line whose model calls the bash tool once.
func bashCall(id, command string, background bool) string {
	args := map[string]any{"command": command, "description": "probe " + id}
	if background {
		args["run_in_background"] = true
	}
	b, err := json.Marshal(map[string]any{"toolCalls": []map[string]any{{"id": id, "name": "bash", "args": args}}})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestSecretsStayOut is the acceptance test of "secrets stay out of the
// model's reach": the real harness runs with ten typical secrets in its
// environment, and a scripted model uses bash to look for them everywhere a
// same-user command can — env, the bash plugin's /proc/$PPID/environ, the
// host's /proc/<pid>/environ (found by name, and by the pid the test
// writes to a file), every /proc/*/environ. None of the values may appear
// in the state dir (the session log, whose tool/results are exactly what
// the next model request carries, and the spill files), nor in harness's
// stdout or stderr.
func TestSecretsStayOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin, pluginDir := buildHarness(t)
	if _, err := os.Stat(filepath.Join(pluginDir, "bash")); err != nil {
		t.Fatalf("no bash plugin in %s: %v", pluginDir, err)
	}
	u := strconv.FormatInt(time.Now().UnixNano(), 36) // unique to this run
	secrets := map[string]string{
		"OPENAI_API_KEY":        "sk-proj-openai" + u,
		"ANTHROPIC_API_KEY":     "sk-ant-api03-anthropic" + u,
		"DEEPSEEK_API_KEY":      "sk-deepseek" + u,
		"HARNESS_API_KEY":       "hk-harness" + u,
		"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMIaws" + u,
		"GITHUB_TOKEN":          "ghs_githubtoken" + u,
		"GH_PAT":                "ghp_ghpat" + u,
		"DATABASE_URL":          "postgres://app:s3cretpw" + u + "@db/app",
		"SENTRY_DSN":            "https://abc123" + u + "@o1.ingest.sentry.io/1",
		"SLACK_WEBHOOK_URL":     "https://hooks.slack.com/services/T0/B0/xyz" + u,
	}
	// What must never show: each whole value, and the secret part of the
	// URLs (the password, the DSN key, the webhook token).
	needles := map[string]string{
		"DATABASE_URL password":   "s3cretpw" + u,
		"SENTRY_DSN key":          "abc123" + u,
		"SLACK_WEBHOOK_URL token": "xyz" + u,
	}
	for k, v := range secrets {
		needles[k] = v
	}

	dir := t.TempDir()
	state, pidFile := filepath.Join(dir, "state"), filepath.Join(dir, "host.pid")
	// The host's pid reaches the command through a file the test writes
	// once harness has started (no variable of the test reaches bash).
	hostEnviron := fmt.Sprintf(`while [ ! -s %[1]s ]; do sleep 0.05; done; echo "host pid $(cat %[1]s)"; cat /proc/$(cat %[1]s)/environ | tr '\0' '\n'`, pidFile)
	commands := []string{
		`env`,
		`echo "parent $PPID"; cat /proc/$PPID/environ | tr '\0' '\n'`,
		hostEnviron,
		`for p in /proc/[0-9]*; do read -r c < $p/comm 2>/dev/null; [ "$c" = harness ] && { echo "harness $p"; tr '\0' '\n' < $p/environ; }; done; true`,
		`grep -a -h -o '[^[:cntrl:]]*' /proc/[0-9]*/environ 2>/dev/null; true`,
		`cat /proc/[0-9]*/environ | tr '\0' '\n'; true`,
	}
	var lines []string
	for i, c := range commands {
		lines = append(lines, bashCall("probe"+strconv.Itoa(i), c, false))
	}
	lines = append(lines, `{"text":"I looked everywhere.","expect":{"lastRole":"tool"}}`)
	script := writeScript(t, lines...)

	cmd := exec.Command(bin, "run", "--yes", "--provider", "script", "--script", script,
		"--state-dir", state, "--plugin-dir", pluginDir, "--permissions", filepath.Join(dir, "no-rules.json"),
		"--log-level", "debug", "look for secrets")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	for k, v := range secrets {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("harness run: %v\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("harness run did not finish in 90 s\nstderr:\n%s", stderr.String())
	}

	// The probes ran: one tool/result each, and each either read a real
	// environment (it shows a PATH) or found the host out of its reach:
	// in its own PID namespace a command sees no /proc entry of the host
	// (probe 2: no such file; probe 3: no process named harness), and as
	// a non-root user without one the host's environ is not readable
	// (permission denied).
	evs, _ := logtest.ReadLog(t, state)
	results := map[string]string{}
	for _, e := range evs {
		if e["type"] == "tool/result" {
			d := e["data"].(map[string]any)
			b, _ := json.Marshal(d)
			results[fmt.Sprint(d["callId"])] = string(b)
		}
	}
	if len(results) != len(commands) {
		t.Fatalf("%d tool/results, want %d (one per probe)", len(results), len(commands))
	}
	unreachable := map[string][]string{
		"probe2": {"No such file or directory", "Permission denied"},
		"probe3": {`"content":"(no output)"`},
	}
	for id, r := range results {
		if slices.ContainsFunc(unreachable[id], func(s string) bool { return strings.Contains(r, s) }) {
			continue
		}
		if !strings.Contains(r, "PATH=") {
			t.Errorf("probe %s read no environment at all: %.300s", id, r)
		}
	}

	// Each probe's result (what the model got), then every file and
	// stream: one line naming the secrets each one holds.
	leaks := func(b []byte) (names []string, sample string) {
		for what, v := range needles {
			if i := bytes.Index(b, []byte(v)); i >= 0 {
				names = append(names, what)
				sample = around(b, i, len(v))
			}
		}
		slices.Sort(names)
		return names, sample
	}
	for i, c := range commands {
		id := "probe" + strconv.Itoa(i)
		if names, sample := leaks([]byte(results[id])); names != nil {
			t.Errorf("the model got %d secrets from %s `%.60s`: %v, e.g. …%s…", len(names), id, c, names, sample)
		}
	}
	where := map[string][]byte{"harness's stdout": stdout.Bytes(), "harness's stderr": stderr.Bytes()}
	err := filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		where[path] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range where {
		if names, _ := leaks(b); names != nil {
			t.Errorf("%s holds %d secrets: %v", name, len(names), names)
		}
	}
}

// around returns the text around b[i:i+n], for an error message.
func around(b []byte, i, n int) string {
	from, to := max(0, i-120), min(len(b), i+n+40)
	return strings.ReplaceAll(string(b[from:to]), "\n", "⏎")
}

// TestNothingOutlivesHost is the acceptance test of "nothing outlives the
// host": the real harness (run, and acp driven on its stdin) has bash run
// `sleep & setsid sleep & (sleep &); sleep` in the foreground and a sleep
// as a background task; then the host gets SIGKILL, or SIGHUP (the
// terminal closed). 2 s after the host is gone, none of those processes
// may exist. After SIGHUP the session's last turn ends as cancelled and
// the exit status is 129 (run) or 0 (acp, as on stdin EOF).
func TestNothingOutlivesHost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin, pluginDir := buildHarness(t)
	tests := []struct {
		cmd string
		sig syscall.Signal
	}{
		{"run", syscall.SIGKILL},
		{"run", syscall.SIGHUP},
		{"acp", syscall.SIGKILL},
		{"acp", syscall.SIGHUP},
		{"run", syscall.SIGTERM},
		{"acp", syscall.SIGTERM},
	}
	for k, tt := range tests {
		t.Run(tt.cmd+" "+tt.sig.String(), func(t *testing.T) {
			t.Parallel()
			// Distinct durations, so that parallel subtests tell their
			// sleeps apart: 4001…4005, 4101…4105, …
			n := 4000 + 100*k
			sleeps := make([]string, 5)
			for i := range sleeps {
				sleeps[i] = "sleep " + strconv.Itoa(n+i+1)
			}
			fg := fmt.Sprintf("%s & setsid %s & (%s &); %s", sleeps[0], sleeps[1], sleeps[2], sleeps[3])
			script := writeScript(t,
				bashCall("bg", sleeps[4], true),
				bashCall("fg", fg, false),
				`{"text":"should not be asked","hang":true}`)
			dir := t.TempDir()
			state := filepath.Join(dir, "state")
			args := []string{tt.cmd, "--yes", "--provider", "script", "--script", script, "--state-dir", state,
				"--plugin-dir", pluginDir, "--permissions", filepath.Join(dir, "no-rules.json")}
			if tt.cmd == "run" {
				args = append(args, "start the sleeps")
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			var stderr logtest.Buffer
			cmd.Stderr = &stderr
			var acp *acpDriver
			if tt.cmd == "acp" {
				acp = startACPDriver(t, cmd)
			} else if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				cmd.Process.Kill()
				for pid := range processes(sleeps) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			if acp != nil {
				acp.prompt(t, "start the sleeps")
			}

			deadline := time.Now().Add(30 * time.Second)
			for len(processes(sleeps)) < len(sleeps) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if got := processes(sleeps); len(got) < len(sleeps) {
				t.Fatalf("only %d of the %d sleeps started (%v)\nstderr:\n%s", len(got), len(sleeps), got, stderr.String())
			}
			sent := time.Now()
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-exited:
			case <-time.After(20 * time.Second):
				t.Fatalf("harness %s still running 20 s after %s\nstderr:\n%s", tt.cmd, tt.sig, stderr.String())
			}
			t.Logf("harness %s exited %v after %s: %v", tt.cmd, time.Since(sent).Round(time.Millisecond), tt.sig, err)
			time.Sleep(2 * time.Second)
			for pid, argv := range processes(sleeps) {
				t.Errorf("%q (pid %d) is alive 2 s after harness %s exited on %s", argv, pid, tt.cmd, tt.sig)
			}
			if tt.sig == syscall.SIGKILL {
				return
			}
			want := 0
			if tt.cmd == "run" {
				want = 128 + int(tt.sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != want {
				t.Errorf("harness %s exited with %d on %s, want %d\nstderr:\n%s", tt.cmd, code, tt.sig, want, stderr.String())
			}
			evs, _ := logtest.ReadLog(t, state)
			last := evs[len(evs)-1]
			if last["type"] != "turn/end" || last["data"].(map[string]any)["reason"] != "cancelled" {
				t.Errorf("last event after %s = %v, want turn/end cancelled", tt.sig, last)
			}
		})
	}
}

// processes returns the live (not zombie) processes whose command line is
// one of argvs, by pid.
func processes(argvs []string) map[int]string {
	out := map[int]string{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err != nil || len(b) == 0 {
			continue
		}
		argv := strings.Join(strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"), " ")
		for _, want := range argvs {
			pid, _ := strconv.Atoi(filepath.Base(d))
			if argv == want && alive(pid) {
				out[pid] = argv
			}
		}
	}
	return out
}

// acpDriver speaks JSON-RPC to `harness acp` on its stdin and reads its
// stdout.
type acpDriver struct {
	in    io.WriteCloser
	lines chan string
	next  int
}

// startACPDriver starts cmd with pipes, initializes the connection and leaves
// stdin open (closing it would end the host as EOF does).
func startACPDriver(t *testing.T, cmd *exec.Cmd) *acpDriver {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &acpDriver{in: in, lines: make(chan string, 1000), next: 1}
	go func() {
		defer close(d.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
	}()
	d.call(t, "initialize", `{"protocolVersion":1}`, true)
	return d
}

// call sends a request and, if wait, returns its response line.
func (d *acpDriver) call(t *testing.T, method, params string, wait bool) string {
	t.Helper()
	id := d.next
	d.next++
	if _, err := fmt.Fprintf(d.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
		t.Fatalf("send %s: %v", method, err)
	}
	if !wait {
		return ""
	}
	want := fmt.Sprintf(`"id":%d,`, id)
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-d.lines:
			if !ok {
				t.Fatalf("harness acp closed stdout before answering %s", method)
			}
			if strings.Contains(l, want) && !strings.Contains(l, `"method"`) {
				if strings.Contains(l, `"error"`) {
					t.Fatalf("%s failed: %s", method, l)
				}
				return l
			}
		case <-timeout:
			t.Fatalf("no answer to %s in 30 s", method)
		}
	}
}

// prompt opens a session and sends a prompt without waiting for its end.
func (d *acpDriver) prompt(t *testing.T, text string) {
	t.Helper()
	resp := d.call(t, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, t.TempDir()), true)
	sid := regexp.MustCompile(`"sessionId":"([^"]+)"`).FindStringSubmatch(resp)
	if sid == nil {
		t.Fatalf("no sessionId in %s", resp)
	}
	d.call(t, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":%q}]}`, sid[1], text), false)
	go func() {
		for range d.lines { // keep stdout drained
		}
	}()
}

// TestHostNotReadable checks that a process of harness's own user cannot
// read /proc/<harness pid>/environ (harness is non-dumpable), while it can
// read that of another process of that user started the same way — so
// the check can fail. As root the test runs both as nobody (root reads
// everything).
func TestHostNotReadable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	dir, err := os.MkdirTemp(systemTemp, "harness-dumpable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	// A copy nobody can reach: the shared build's folder is the test
	// run's temp dir, private to root.
	bin := filepath.Join(dir, "harness")
	data, err := os.ReadFile(harnessBin(t))
	if err == nil {
		err = os.WriteFile(bin, data, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(script, []byte(`{"text":"waiting","hang":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	start := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "HARNESS_TEST_SECRET=hidden-value-42"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	read := func(pid int) (string, error) {
		cmd := exec.Command("cat", fmt.Sprintf("/proc/%d/environ", pid))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	host := start(bin, "run", "--provider", "script", "--script", script, "--state-dir", filepath.Join(dir, "state"),
		"--plugin-dir", filepath.Join(dir, "no-plugins"), "wait")
	other := start("sleep", "30")
	// Wait until harness has created its session — long after main made
	// the process non-dumpable — however slow the machine is.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if logs, _ := filepath.Glob(filepath.Join(dir, "state", "sessions", "*.jsonl")); len(logs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("harness created no session within 60s")
		}
	}
	if out, err := read(other.Process.Pid); err != nil || !strings.Contains(out, "hidden-value-42") {
		t.Fatalf("the control: cannot read the environment of a process of the same user: %v %q", err, out)
	}
	out, err := read(host.Process.Pid)
	if err == nil || strings.Contains(out, "hidden-value-42") {
		t.Errorf("a process of harness's user read /proc/<harness pid>/environ: %v %q", err, around([]byte(out), strings.Index(out, "hidden"), 10))
	}
}
