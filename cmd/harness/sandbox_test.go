package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/harness-dev/harness/internal/logtest"
	"github.com/harness-dev/harness/sandbox"
)

// TestRunSandboxSetting runs the installed harness, a real process, with
// the script provider calling the real bash plugin to `touch x` in the
// session's cwd, under each spelling of the sandbox setting — flag,
// variable, config file — with no --plugin-env: the host itself hands the
// setting to the plugin. read-only refuses the write (the file is checked
// on disk) and the result names the sandbox; workspace-write and off let
// it through. The header line names the setting.
func TestRunSandboxSetting(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is enforced on Linux only")
	}
	t.Parallel()
	bin := installedHarness(t)
	tests := []struct {
		name       string
		args       []string
		env        []string
		file       string // config.toml
		wantWrite  bool
		wantHeader string
	}{
		{name: "default", wantWrite: true, wantHeader: "sandbox workspace-write, network off"},
		{name: "flag read-only", args: []string{"--sandbox", "read-only"}, wantHeader: "sandbox read-only, network off"},
		{name: "flag off", args: []string{"--sandbox", "off"}, wantWrite: true, wantHeader: "sandbox off: commands run with your rights"},
		{name: "flag allow-list", args: []string{"--sandbox-network", "127.0.0.1, *.Example.com"}, wantWrite: true,
			wantHeader: "sandbox workspace-write, network allow-list 127.0.0.1,*.example.com"},
		{name: "env read-only", env: []string{"HARNESS_SANDBOX=read-only", "HARNESS_SANDBOX_NETWORK=on"}, wantHeader: "sandbox read-only, network on"},
		{name: "file read-only", file: "sandbox = \"read-only\"\n", wantHeader: "sandbox read-only, network off"},
		{name: "flag beats env", args: []string{"--sandbox", "off"}, env: []string{"HARNESS_SANDBOX=read-only"}, wantWrite: true, wantHeader: "sandbox off"},
		{name: "--plugin-env cannot override the host's", args: []string{"--plugin-env", "HARNESS_SANDBOX", "--sandbox", "read-only"},
			env: []string{"HARNESS_SANDBOX=off"}, wantHeader: "sandbox read-only, network off"},
		{name: "env beats file", env: []string{"HARNESS_SANDBOX=off"}, file: "sandbox = \"read-only\"\n", wantWrite: true, wantHeader: "sandbox off"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			state, cwd, xdg := t.TempDir(), t.TempDir(), t.TempDir()
			if tc.file != "" {
				if err := os.MkdirAll(filepath.Join(xdg, "harness"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(xdg, "harness", "config.toml"), []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			script := writeScript(t, `{"toolCalls":[{"id":"c1","name":"bash","args":{"command":"touch x","description":"make x"}}]}`, `{"text":"done"}`)
			args := append([]string{"run", "--provider", "script", "--script", script, "--yes"}, tc.args...)
			cmd := exec.Command(bin, append(args, "make x")...)
			cmd.Dir = cwd
			cmd.Env = append(append(installedEnv(state), "XDG_CONFIG_HOME="+xdg), tc.env...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("run: %v\n%s\n%s", err, out.String(), errb.String())
			}
			header, _, _ := strings.Cut(errb.String(), "\n")
			if !strings.Contains(header, "mode allow-all · "+tc.wantHeader) {
				t.Errorf("header %q, want the mode and %q", header, tc.wantHeader)
			}
			_, err := os.Stat(filepath.Join(cwd, "x"))
			if wrote := err == nil; wrote != tc.wantWrite {
				t.Errorf("x written: %v, want %v (%v)\n%s", wrote, tc.wantWrite, err, out.String())
			}
			evs, _ := logtest.ReadLog(t, state)
			var result string
			for _, e := range evs {
				if e["type"] == "tool/result" {
					b, _ := json.Marshal(e["data"])
					result = string(b)
				}
			}
			named := strings.Contains(result, "the sandbox (read-only")
			if named == tc.wantWrite {
				t.Errorf("result names the read-only sandbox: %v, want %v: %s", named, !tc.wantWrite, result)
			}
		})
	}
}

// TestSandboxCommand runs `harness sandbox`, the installed binary, under
// each setting and checks its rows against what this test's own probe of
// the same kernel says the setting gets here: every row, with its
// enforced or not.
func TestSandboxCommand(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is enforced on Linux only")
	}
	t.Parallel()
	bin := installedHarness(t)
	k := sandbox.Probe()
	tests := []struct {
		name     string
		args     []string
		env      []string
		mode     sandbox.Mode
		network  sandbox.Network
		wantHead string
	}{
		{name: "default", mode: sandbox.WorkspaceWrite, network: sandbox.NetworkOff,
			wantHead: "sandbox workspace-write, network off (mode from the default, network from the default)"},
		{name: "read-only flag, network env", args: []string{"--sandbox", "read-only"}, env: []string{"HARNESS_SANDBOX_NETWORK=on"},
			mode: sandbox.ReadOnly, network: sandbox.NetworkOn,
			wantHead: "sandbox read-only, network on (mode from --sandbox, network from HARNESS_SANDBOX_NETWORK)"},
		{name: "allow-list", env: []string{"HARNESS_SANDBOX_NETWORK=a.example,127.0.0.1"}, mode: sandbox.WorkspaceWrite, network: "a.example,127.0.0.1",
			wantHead: "sandbox workspace-write, network allow-list a.example,127.0.0.1 (mode from the default, network from HARNESS_SANDBOX_NETWORK)"},
		{name: "off", env: []string{"HARNESS_SANDBOX=off"}, mode: sandbox.Off, network: sandbox.NetworkOn,
			wantHead: "sandbox off (mode from HARNESS_SANDBOX"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cwd := t.TempDir()
			cmd := exec.Command(bin, append([]string{"sandbox"}, tc.args...)...)
			cmd.Dir = cwd
			cmd.Env = append(installedEnv(t.TempDir()), tc.env...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("harness sandbox: %v\n%s", err, out)
			}
			text := string(out)
			for _, w := range []string{"this kernel:\n", "Landlock:", "seccomp:", "network namespaces:", tc.wantHead} {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			p := sandbox.Policy{Mode: sandbox.Off, Network: sandbox.NetworkOn}
			if tc.mode != sandbox.Off {
				p = sandbox.Build(sandbox.Setup{Mode: tc.mode, Network: tc.network, Cwd: cwd, TempDir: os.TempDir()})
			}
			rows := k.Enforceable(p)
			if len(rows) == 0 {
				t.Fatal("no rows to compare")
			}
			for _, r := range rows {
				if !strings.Contains(text, "  "+r.String()+"\n") {
					t.Errorf("output lacks the row %q:\n%s", r.String(), text)
				}
			}
		})
	}
	// A bad setting is one line and exit 2.
	cmd := exec.Command(bin, "sandbox", "--sandbox", "sideways")
	cmd.Env = installedEnv(t.TempDir())
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitUsage || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 ||
		!strings.Contains(errb.String(), `--sandbox: unknown sandbox mode "sideways"`) {
		t.Errorf("bad --sandbox: %v, stderr %q; want exit 2 and one line naming the flag", err, errb.String())
	}
}

// TestSandboxLoggedPerSession: a session is created with its sandbox
// setting logged (sandbox/policy, by host, before the first turn); a
// continued session under the same setting logs nothing more, and under
// another setting logs the new one: the log alone tells what each
// turn's commands could touch. harness sessions shows the last one.
func TestSandboxLoggedPerSession(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PROVIDER": "script", "HARNESS_PLUGIN_DIR": t.TempDir()}
	policies := func() []string {
		evs, _ := logtest.ReadLog(t, state)
		var got []string
		for _, e := range evs {
			switch e["type"] {
			case "sandbox/policy":
				d := e["data"].(map[string]any)
				got = append(got, d["mode"].(string)+"/"+d["network"].(string)+"/"+d["by"].(string))
			case "turn/start":
				got = append(got, "turn")
			}
		}
		return got
	}
	steps := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"--sandbox", "read-only"}, want: "read-only/off/host turn"},
		{env: map[string]string{"HARNESS_SANDBOX": "read-only"}, want: "read-only/off/host turn turn"},
		{args: []string{"--sandbox", "off"}, want: "read-only/off/host turn turn off/on/host turn"},
		{args: []string{"--sandbox-network", "on"}, want: "read-only/off/host turn turn off/on/host turn workspace-write/on/host turn"},
	}
	id := ""
	for i, st := range steps {
		e := map[string]string{"HARNESS_SCRIPT": writeScript(t, `{"text":"ok"}`)}
		for k, v := range env {
			e[k] = v
		}
		for k, v := range st.env {
			e[k] = v
		}
		args := append([]string{"run"}, st.args...)
		if id != "" {
			args = append(args, "--session", id)
		}
		code, _, errOut := harness(t, e, append(args, "go")...)
		if code != exitOK {
			t.Fatalf("step %d: exit %d\n%s", i, code, errOut)
		}
		if id == "" {
			id = strings.Fields(errOut[strings.Index(errOut, "session ")+len("session "):])[0]
		}
		if got := strings.Join(policies(), " "); got != st.want {
			t.Errorf("step %d: sandbox events and turns = %q, want %q", i, got, st.want)
		}
	}
	// harness sessions shows the last one.
	code, out, errOut := harness(t, env, "sessions")
	if code != exitOK || !strings.Contains(out, "SANDBOX") || !strings.Contains(out, "workspace-write +net") {
		t.Errorf("sessions: exit %d, want the sandbox column with workspace-write +net:\n%s%s", code, out, errOut)
	}
}

// TestSandboxOnToolCall runs the installed harness with the script
// provider calling the real bash plugin's bash and the real todo plugin's
// todo_write in one step, under the default sandbox, read-only and off:
// the bash tool/call records the sandbox its command ran under (mode,
// network, the writable roots: the session's cwd in workspace-write, with
// its repository's git folder when the cwd is a subfolder of one; none
// otherwise); todo_write's records none.
func TestSandboxOnToolCall(t *testing.T) {
	t.Parallel()
	bin := installedHarness(t)
	tests := []struct {
		name string
		args []string
		want string // the bash call's sandbox, with CWD for the session's cwd
		git  bool   // the cwd is a subfolder of a git repository (GIT: its git folder)
	}{
		{name: "default", want: `{"mode":"workspace-write","network":"off","pidsLimit":1024,"roots":["CWD"]}`},
		{name: "git subfolder", git: true, want: `{"mode":"workspace-write","network":"off","pidsLimit":1024,"roots":["CWD","GIT"]}`},
		{name: "read-only", args: []string{"--sandbox", "read-only"}, want: `{"mode":"read-only","network":"off","pidsLimit":1024}`},
		{name: "off", args: []string{"--sandbox", "off"}, want: `{"mode":"off","network":"on"}`},
		{name: "network on", args: []string{"--sandbox-network", "on"}, want: `{"mode":"workspace-write","network":"on","pidsLimit":1024,"roots":["CWD"]}`},
		{name: "allow-list", args: []string{"--sandbox-network", "registry.npmjs.org,127.0.0.1:8080"},
			want: `{"mode":"workspace-write","network":"registry.npmjs.org,127.0.0.1:8080","pidsLimit":1024,"roots":["CWD"]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			state, cwd := t.TempDir(), t.TempDir()
			repo := cwd
			if tc.git {
				if err := os.Mkdir(filepath.Join(repo, ".git"), 0o700); err != nil {
					t.Fatal(err)
				}
				for _, f := range []string{"HEAD", "config"} {
					if err := os.WriteFile(filepath.Join(repo, ".git", f), []byte("ref: refs/heads/main\n"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				cwd = filepath.Join(repo, "sub")
				if err := os.Mkdir(cwd, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			script := writeScript(t, `{"toolCalls":[{"id":"c1","name":"bash","args":{"command":"true","description":"nothing"}},`+
				`{"id":"c2","name":"todo_write","args":{"todos":[{"content":"a","status":"pending"}]}}]}`, `{"text":"done"}`)
			args := append([]string{"run", "--provider", "script", "--script", script, "--yes"}, tc.args...)
			cmd := exec.Command(bin, append(args, "go")...)
			cmd.Dir = cwd
			cmd.Env = installedEnv(state)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			real, err := filepath.EvalSymlinks(cwd)
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := logtest.ReadLog(t, state)
			got := map[string]string{}
			for _, e := range evs {
				if e["type"] != "tool/call" {
					continue
				}
				d := e["data"].(map[string]any)
				sb := "none"
				if v, ok := d["sandbox"]; ok {
					b, _ := json.Marshal(v)
					sb = string(b)
				}
				got[d["name"].(string)] = sb
			}
			realRepo, err := filepath.EvalSymlinks(repo)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"bash": strings.NewReplacer("CWD", real, "GIT", filepath.Join(realRepo, ".git")).Replace(tc.want), "todo_write": "none"}
			if len(got) != 2 || got["bash"] != want["bash"] || got["todo_write"] != want["todo_write"] {
				t.Errorf("tool/call sandboxes %v, want %v", got, want)
			}
		})
	}
}
