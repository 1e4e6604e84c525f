//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/internal/logtest"
	"github.com/harness-dev/harness/pluginapi"
)

// csvstatExample is the Python example plugin.
const csvstatExample = repoRoot + "/examples/plugins/py-csvstat"

// systemPython is the interpreter the Python example's zipapp names: the
// one Debian's python3-grpcio and python3-protobuf install for.
const systemPython = "/usr/bin/python3"

var builtCSVStat builtOnce

// pythonTools fails the test unless /usr/bin/python3 has grpc and
// protobuf and protoc is on PATH; outside CI ($CI is not true) it skips
// instead, naming what to install.
func pythonTools(t *testing.T) {
	t.Helper()
	var missing []string
	if out, err := exec.Command(systemPython, "-I", "-c", "import grpc, google.protobuf").CombinedOutput(); err != nil {
		missing = append(missing, fmt.Sprintf("%s cannot import grpc and google.protobuf (%v: %s); apt-get install python3-grpcio python3-protobuf",
			systemPython, err, strings.TrimSpace(lastLine(string(out)))))
	}
	if _, err := exec.LookPath("protoc"); err != nil {
		missing = append(missing, "protoc not found; apt-get install protobuf-compiler")
	}
	if len(missing) == 0 {
		return
	}
	msg := "the Python plugin tests (examples/plugins/py-csvstat) need them: " + strings.Join(missing, "; ")
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI must install them: .ci/run does)")
	}
	t.Skip(msg)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// csvstatPlugin builds the Python example as its README says:
// /usr/bin/python3 build.py OUT, one executable zipapp.
func csvstatPlugin(t *testing.T) string {
	t.Helper()
	pythonTools(t)
	return builtCSVStat.get(t, func() (string, error) {
		dir, err := testTempDir("harness-python-plugin-")
		if err != nil {
			return "", err
		}
		out := filepath.Join(dir, "csvstat")
		cmd := exec.Command(systemPython, "build.py", out)
		cmd.Dir = csvstatExample
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("build the Python plugin (%s build.py): %v\n%s", systemPython, err, b)
		}
		return out, nil
	})
}

// sessionTurnFlags is sessionTurn with flags for harness run.
func sessionTurnFlags(t *testing.T, pluginDir, cwd string, flags []string, script ...string) []map[string]any {
	t.Helper()
	state := t.TempDir()
	id := storedSession(t, state, cwd)
	env := map[string]string{
		"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": pluginDir,
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": writeScript(t, script...),
	}
	args := append(append([]string{"run", "--session", id}, flags...), "use the tool")
	code, out, errOut := harness(t, env, args...)
	if code != exitOK {
		t.Fatalf("harness run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	evs, _ := logtest.ReadLog(t, state)
	return evs
}

const csvData = "name,age,city\nalice,30,Paris\nbob,25,\ncarol,41,Paris\n"

// csvSummary is what csv_stats answers for csvData in a file named name.
func csvSummary(name string) string {
	return name + ": 3 rows, 3 columns (delimiter ','; the first row is the header)\n" +
		"- name: text, 3 filled; 3 distinct; top: alice (1), bob (1), carol (1)\n" +
		"- age: number, 3 filled; min 25, max 41, mean 32\n" +
		"- city: text, 2 filled, 1 empty; 1 distinct; top: Paris (2)"
}

const secretCSV = "key\nSECRET-CELL-42\n"

func secretSummary(name string) string {
	return name + ": 1 rows, 1 columns (delimiter ','; the first row is the header)\n" +
		"- key: text, 1 filled; 1 distinct; top: SECRET-CELL-42 (1)"
}

// TestPythonPlugin builds the Python example, checks it with the same
// conformance suite as Go plugins, and has a session call it.
func TestPythonPlugin(t *testing.T) {
	t.Parallel()
	bin := csvstatPlugin(t)
	wantChecksPass(t, bin, "csvstat 0.1.0")

	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "data.csv"), []byte(csvData), 0o644); err != nil {
		t.Fatal(err)
	}
	evs := sessionTurnFlags(t, pluginDirWith(t, bin), cwd, nil,
		`{"toolCalls":[{"id":"c1","name":"csv_stats","args":{"file":"data.csv"}}]}`,
		`{"text":"Done.","expect":{"lastRole":"tool","lastContains":"mean 32"}}`)
	call, result := toolCall(t, evs)
	if want := csvSummary("data.csv"); result["content"] != want || result["isError"] == true {
		t.Errorf("tool/result = %v, want the content\n%s", result, want)
	}
	servedBy(t, call, "csvstat", bin)
}

// TestPythonPluginAsksTheHost: the Python plugin reaches the host's
// HostServices through go-plugin's broker. A file outside the session's
// cwd (directly, or through a symlink inside it) is read only when
// RequestPermission allows it: with no one to ask, the host denies and
// nothing of the file reaches the log; with --yes, it is summarized. A
// file inside the cwd is never asked about.
func TestPythonPluginAsksTheHost(t *testing.T) {
	t.Parallel()
	bin := csvstatPlugin(t)
	cwd, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.csv")
	for path, data := range map[string]string{secret: secretCSV, filepath.Join(cwd, "in.csv"): csvData} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(cwd, "link.csv")); err != nil {
		t.Fatal(err)
	}
	call := func(id, file string) string {
		return fmt.Sprintf(`{"id":%q,"name":"csv_stats","args":{"file":%q}}`, id, file)
	}
	script := []string{fmt.Sprintf(`{"toolCalls":[%s,%s,%s]}`, call("in", "in.csv"), call("abs", secret), call("link", "link.csv")),
		`{"text":"done"}`}
	denied := "Error: permission denied: " + secret + " is outside the project " + cwd + "; ask the user ("
	tests := []struct {
		name  string
		flags []string
		want  map[string]string // call id: its result
	}{
		{name: "no one to ask", want: map[string]string{"in": csvSummary("in.csv"), "abs": denied, "link": denied}},
		{name: "yes", flags: []string{"--yes"}, want: map[string]string{
			"in": csvSummary("in.csv"), "abs": secretSummary(secret), "link": secretSummary("link.csv")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			evs := sessionTurnFlags(t, pluginDirWith(t, bin), cwd, tc.flags, script...)
			got := map[string]string{}
			for _, e := range evs {
				if e["type"] == "tool/result" {
					d := e["data"].(map[string]any)
					c, _ := d["content"].(string)
					got[fmt.Sprint(d["callId"])] = c
				}
			}
			for id, want := range tc.want {
				if strings.HasSuffix(want, "(") && strings.HasPrefix(got[id], want) || got[id] == want {
					continue
				}
				t.Errorf("result of %s = %q, want %q", id, got[id], want)
			}
			if b, err := json.Marshal(evs); err != nil || tc.flags == nil && strings.Contains(string(b), "SECRET-CELL") {
				t.Errorf("the denied file's content reached the log (%v)", err)
			}
		})
	}
}

// TestPythonPluginProcess checks the Python plugin's process contract
// where the checks cannot see it: it refuses to run by hand, prints
// exactly the handshake line with a socket in $PLUGIN_UNIX_SOCKET_DIR,
// and exits, removing its socket, when its stdin closes (the host died)
// and on SIGTERM.
func TestPythonPluginProcess(t *testing.T) {
	t.Parallel()
	bin := csvstatPlugin(t)
	out, err := exec.Command(bin).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "csvstat is a harness plugin") {
		t.Errorf("run by hand: %v\n%s", err, out)
	}
	for _, stop := range []string{"stdin closed", "SIGTERM"} {
		t.Run(stop, func(t *testing.T) {
			t.Parallel()
			// A short folder: a Unix socket's path has at most 107 bytes.
			sockets, err := os.MkdirTemp(testTemp, "s")
			if err != nil {
				t.Fatal(err)
			}
			var stderr logtest.Buffer
			cmd := exec.Command(bin)
			cmd.Stderr = &stderr
			cmd.Env = append(os.Environ(), pluginapi.MagicCookieKey+"="+pluginapi.MagicCookieValue,
				"PLUGIN_PROTOCOL_VERSIONS=1", "PLUGIN_UNIX_SOCKET_DIR="+sockets, pluginapi.EnvExitOnStdinEOF+"=1")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill() }()
			type read struct {
				line string
				err  error
			}
			handshake := make(chan read, 1)
			go func() {
				line, err := bufio.NewReader(stdout).ReadString('\n')
				handshake <- read{line, err}
			}()
			var line string
			select {
			case r := <-handshake:
				if r.err != nil {
					t.Fatalf("no handshake line: %v\nstderr: %s", r.err, stderr.String())
				}
				line = r.line
			case <-time.After(time.Minute):
				t.Fatalf("no handshake line within a minute\nstderr: %s", stderr.String())
			}
			m := regexp.MustCompile(`^1\|1\|unix\|(` + regexp.QuoteMeta(sockets) + `/[^|]+)\|grpc\n$`).FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("handshake line %q, want 1|1|unix|%s/…|grpc", line, sockets)
			}
			if st, err := os.Stat(m[1]); err != nil || st.Mode()&os.ModeSocket == 0 {
				t.Errorf("%s is not a socket: %v", m[1], err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			if stop == "SIGTERM" {
				err = cmd.Process.Signal(syscall.SIGTERM)
			} else {
				err = stdin.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("exit after %s: %v", stop, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("the plugin did not exit after %s", stop)
			}
			if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
				t.Errorf("the socket is left behind: %v", err)
			}
		})
	}
}
