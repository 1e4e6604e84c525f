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

// sandboxRun is one run of the installed harness whose script calls the
// real bash plugin once with command, in cwd, with args and env.
type sandboxRun struct {
	header string           // the first line of stderr
	result string           // the bash call's tool/result content
	events []map[string]any // the session's log
}

// runBashOnce runs `harness run --yes args… go` in cwd, its script
// running command in the bash tool, and returns what it printed and
// logged. A run that fails is fatal.
func runBashOnce(t *testing.T, cwd, command string, args, env []string) sandboxRun {
	t.Helper()
	bin := installedHarness(t)
	state := t.TempDir()
	call, err := json.Marshal(map[string]any{"toolCalls": []any{map[string]any{"id": "c1", "name": "bash",
		"args": map[string]any{"command": command, "description": "test", "timeout_ms": 60000}}}})
	if err != nil {
		t.Fatal(err)
	}
	script := writeScript(t, string(call), `{"text":"done"}`)
	cmd := exec.Command(bin, append(append([]string{"run", "--provider", "script", "--script", script, "--yes"}, args...), "go")...)
	cmd.Dir = cwd
	cmd.Env = append(installedEnv(state), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, out.String(), errb.String())
	}
	r := sandboxRun{}
	r.header, _, _ = strings.Cut(errb.String(), "\n")
	r.events, _ = logtest.ReadLog(t, state)
	for _, e := range r.events {
		if e["type"] == "tool/result" {
			r.result, _ = e["data"].(map[string]any)["content"].(string)
		}
	}
	return r
}

// data is the JSON of the data of the last event of type typ, "" if none.
func (r sandboxRun) data(typ, key string) string {
	out := ""
	for _, e := range r.events {
		if e["type"] == typ {
			d := e["data"].(map[string]any)
			if key != "" {
				if _, ok := d[key]; !ok {
					out = "null"
					continue
				}
				b, _ := json.Marshal(d[key])
				out = string(b)
				continue
			}
			b, _ := json.Marshal(d)
			out = string(b)
		}
	}
	return out
}

// realDir is dir with its symbolic links resolved.
func realDir(t *testing.T, dir string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRunAddDir: a folder added by flag, variable or config file ("~"
// expanded) takes a command's writes, checked on disk, while another
// folder outside every root does not, and the added folder's
// .git/hooks stays read-only; the session's sandbox/policy and the call's
// tool/call carry the folder, and the header names it. Without the
// setting the same command writes nothing there (the row tests something).
func TestRunAddDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is enforced on Linux only")
	}
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		env   []string
		file  string // config.toml, HOME for "~"
		added bool
	}{
		{name: "flag", args: []string{"--add-dir", "X"}, added: true},
		{name: "variable list", env: []string{"HARNESS_ADD_DIRS=X"}, added: true},
		{name: "config file with ~", file: "add-dirs = [\"~/x\"]\n", added: true},
		{name: "none", added: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home, cwd, outside, xdg := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
			x := filepath.Join(home, "x")
			if out, err := exec.Command("git", "init", "-q", x).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			if tc.file != "" {
				if err := os.MkdirAll(filepath.Join(xdg, "harness"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(xdg, "harness", "config.toml"), []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			repl := strings.NewReplacer("X", x)
			var args, env []string
			for _, a := range tc.args {
				args = append(args, repl.Replace(a))
			}
			for _, e := range tc.env {
				env = append(env, repl.Replace(e))
			}
			env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+xdg)
			hook := filepath.Join(x, ".git", "hooks", "pre-commit")
			r := runBashOnce(t, cwd, "touch "+x+"/ok; touch "+outside+"/no; echo pwned > "+hook+"; echo end", args, env)
			_, err := os.Stat(filepath.Join(x, "ok"))
			if wrote := err == nil; wrote != tc.added {
				t.Errorf("written in the added folder: %v, want %v\n%s", wrote, tc.added, r.result)
			}
			if _, err := os.Stat(filepath.Join(outside, "no")); err == nil {
				t.Errorf("written outside every root:\n%s", r.result)
			}
			if b, _ := os.ReadFile(hook); strings.Contains(string(b), "pwned") {
				t.Errorf("the added folder's .git/hooks took a write:\n%s", r.result)
			}
			rx := realDir(t, x)
			wantDirs, wantRoot := "null", false
			if tc.added {
				wantDirs, wantRoot = `["`+rx+`"]`, true
			}
			if got := r.data("sandbox/policy", "addDirs"); got != wantDirs {
				t.Errorf("sandbox/policy addDirs = %s, want %s", got, wantDirs)
			}
			if roots := r.data("tool/call", "sandbox"); strings.Contains(roots, `"`+rx+`"`) != wantRoot {
				t.Errorf("tool/call sandbox %s, want %s among its roots: %v", roots, rx, wantRoot)
			}
			if strings.Contains(r.header, "added folders "+rx) != tc.added {
				t.Errorf("header %q, want it to name %s: %v", r.header, rx, tc.added)
			}
		})
	}
}

// TestAddDirRefused: an added folder or a deny-read path that is not
// usable, or a pids limit out of range, is one line naming where it came
// from, and exit 2; nothing runs.
func TestAddDirRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	const cfg = "CONFIG" // the test's config file
	tests := []struct {
		name string
		args []string
		env  map[string]string
		file string
		want string
	}{
		{name: "missing", args: []string{"--add-dir", filepath.Join(dir, "nope")}, want: "--add-dir: added folder " + filepath.Join(dir, "nope") + " does not exist"},
		{name: "a file", args: []string{"--add-dir", file}, want: "--add-dir: added folder " + file + " is not a folder"},
		{name: "relative", env: map[string]string{"HARNESS_ADD_DIRS": "src"}, want: `HARNESS_ADD_DIRS: added folder "src" is not an absolute path`},
		{name: "root", file: "add-dirs = [\"/\"]\n", want: "config file " + cfg + ": add-dirs: added folder / is the root folder"},
		{name: "a hidden credential store", args: []string{"--add-dir", "~/.ssh"}, want: "--add-dir: added folder " + filepath.Join(dir, ".ssh") + " is inside"},
		{name: "not a list of strings", file: "add-dirs = [1]\n", want: "config file " + cfg + ": add-dirs: item 1: want a string"},
		{name: "deny-read relative", args: []string{"--deny-read", "secrets"}, want: `--deny-read: deny-read path "secrets" is not an absolute path`},
		{name: "deny-read root", file: "deny-read = \"/\"\n", want: "config file " + cfg + ": deny-read: deny-read path / would hide everything"},
		{name: "pids-limit too small", args: []string{"--pids-limit", "2"}, want: "--pids-limit: pids-limit must be from 8 to"},
		{name: "pids-limit not a number", env: map[string]string{"HARNESS_PIDS_LIMIT": "many"}, want: `HARNESS_PIDS_LIMIT: "many" is not a whole number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			xdg := t.TempDir()
			if tc.file != "" {
				if err := os.MkdirAll(filepath.Join(xdg, "harness"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(xdg, "harness", "config.toml"), []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"HARNESS_STATE_DIR": t.TempDir(), "HARNESS_PROVIDER": "script", "HARNESS_PLUGIN_DIR": t.TempDir(),
				"HARNESS_SCRIPT": writeScript(t, `{"text":"ok"}`), "XDG_CONFIG_HOME": xdg, "HOME": dir}
			for k, v := range tc.env {
				env[k] = v
			}
			code, _, errOut := harness(t, env, append(append([]string{"run"}, tc.args...), "go")...)
			want := strings.ReplaceAll(tc.want, cfg, filepath.Join(xdg, "harness", "config.toml"))
			if code != exitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line containing %q", code, errOut, want)
			}
		})
	}
}

// TestRunDenyRead: a folder named by --deny-read reads as empty to a
// command (its secret is not in the result), the sandbox/policy and the
// call's tool/call carry it; without the setting the same command reads
// the secret (the row tests something).
func TestRunDenyRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is enforced on Linux only")
	}
	if !sandbox.Probe().MountNS {
		t.Skip("hiding a path needs a mount namespace")
	}
	t.Parallel()
	private := t.TempDir()
	if err := os.WriteFile(filepath.Join(private, "token"), []byte("planted-secret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rp := realDir(t, private)
	for _, hide := range []bool{true, false} {
		var args []string
		if hide {
			args = []string{"--deny-read", rp}
		}
		r := runBashOnce(t, t.TempDir(), "cat "+rp+"/token; echo end", args, nil)
		if got := strings.Contains(r.result, "planted-secret-token"); got == hide {
			t.Errorf("deny-read %v: the secret read: %v\n%s", hide, got, r.result)
		}
		if !strings.Contains(r.result, "end") {
			t.Errorf("the command did not run:\n%s", r.result)
		}
		want := "null"
		if hide {
			want = `["` + rp + `"]`
		}
		if got := r.data("sandbox/policy", "denyRead"); got != want {
			t.Errorf("sandbox/policy denyRead = %s, want %s", got, want)
		}
		if got := r.data("tool/call", "sandbox"); strings.Contains(got, `"denyRead":["`+rp+`"]`) != hide {
			t.Errorf("tool/call sandbox %s: denyRead %s wanted %v", got, rp, hide)
		}
	}
}

// TestRunPidsLimit: --pids-limit 64 stops a command's 100th background
// process (checked in its output), where the default, 1,024, lets all
// 100 start; the sandbox/policy and tool/call carry the limit.
func TestRunPidsLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is enforced on Linux only")
	}
	if _, err := sandbox.PidsCgroupParent(); err != nil && os.Getuid() == 0 {
		t.Skipf("as root without a writable pids cgroup there is no pids limit (%v)", err)
	}
	// Not parallel: in the fallback the limit is RLIMIT_NPROC over all of
	// this user's processes.
	const spawn = `for i in $(seq 100); do sleep 30 & done 2>&1; echo started $(jobs -p | wc -l); kill $(jobs -p) 2>/dev/null`
	for _, tc := range []struct {
		args    []string
		limit   string
		started bool
	}{{args: []string{"--pids-limit", "64"}, limit: "64"}, {limit: "1024", started: true}} {
		r := runBashOnce(t, t.TempDir(), spawn, tc.args, nil)
		if got := strings.Contains(r.result, "started 100"); got != tc.started {
			t.Errorf("pids limit %s: 100 processes started: %v, want %v\n%s", tc.limit, got, tc.started, r.result)
		}
		if got := r.data("sandbox/policy", "pidsLimit"); got != tc.limit {
			t.Errorf("sandbox/policy pidsLimit = %s, want %s", got, tc.limit)
		}
		if got := r.data("tool/call", "sandbox"); !strings.Contains(got, `"pidsLimit":`+tc.limit) {
			t.Errorf("tool/call sandbox %s, want pidsLimit %s", got, tc.limit)
		}
	}
}

// TestSandboxCommandAddDir: `harness sandbox` names the added folders and
// the hidden paths with where they came from; with the sandbox off it
// names none (nothing confines the commands).
func TestSandboxCommandAddDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is enforced on Linux only")
	}
	t.Parallel()
	bin := installedHarness(t)
	x := realDir(t, t.TempDir())
	for _, tc := range []struct {
		args      []string
		want, not []string
	}{
		{args: []string{"--add-dir", x, "--deny-read", "/srv/private"},
			want: []string{"sandbox workspace-write, network off, added folders " + x, "added folders (from --add-dir): " + x,
				"hidden besides the credential stores (from --deny-read): /srv/private"}},
		{args: []string{"--add-dir", x, "--sandbox", "off"}, not: []string{"added folders"}},
	} {
		cmd := exec.Command(bin, append([]string{"sandbox"}, tc.args...)...)
		cmd.Dir = t.TempDir()
		cmd.Env = installedEnv(t.TempDir())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("harness sandbox %q: %v\n%s", tc.args, err, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("harness sandbox %q lacks %q:\n%s", tc.args, w, out)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(string(out), n) {
				t.Errorf("harness sandbox %q holds %q:\n%s", tc.args, n, out)
			}
		}
	}
}
