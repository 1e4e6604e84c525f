//go:build linux

package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// builtHarness is this command built once for the tests that run it as a
// real process.
var builtHarness builtOnce

// harnessBin returns the harness binary, built on first use.
func harnessBin(t testing.TB) string {
	return builtHarness.get(t, func() (string, error) {
		dir, err := testTempDir("harness-bin-")
		if err != nil {
			return "", err
		}
		bin := filepath.Join(dir, "harness")
		if out, err := staticBuild("-o", bin, ".").CombinedOutput(); err != nil {
			return "", errors.New("go build: " + err.Error() + "\n" + string(out))
		}
		return bin, nil
	})
}

// runHarness runs the binary with args under umask (a shell sets it, as
// a user's would be) and returns its exit code, stdout and stderr.
func runHarness(t *testing.T, umask string, args ...string) (int, string, string) {
	t.Helper()
	return runHarnessIn(t, umask, "", nil, args...)
}

// runHarnessIn is runHarness with the config folder home/.config/harness
// ("": a fresh home) and stdin in.
func runHarnessIn(t *testing.T, umask, home string, in []byte, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `umask "$0" && exec "$@"`, umask, harnessBin(t)}, args...)...)
	if home == "" {
		home = t.TempDir()
	}
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + os.TempDir(), "NO_COLOR=1"}
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run harness: %v", err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// scriptRun is `harness run` with the script model on state, no plugins.
func scriptRun(t *testing.T, state string, extra ...string) []string {
	script := writeScript(t, `{"text":"the answer"}`)
	return append([]string{"run", "--provider", "script", "--script", script, "--state-dir", state, "--plugin-dir", t.TempDir()}, extra...)
}

// oneRefusal checks that stderr is one line, the refusal of what at path
// with want and the fix, and nothing of the files' contents.
func oneRefusal(t *testing.T, op string, code, wantCode int, stderr, what, path string, want ...string) {
	t.Helper()
	line := strings.TrimSuffix(stderr, "\n")
	if code != wantCode || strings.Contains(line, "\n") || !strings.HasPrefix(line, "harness: ") || !strings.Contains(line, what+" "+path+" ") ||
		!strings.Contains(line, "; refused: ") || strings.Contains(line, "secret-prompt-1234") {
		t.Errorf("%s: exit %d, stderr %q; want exit %d and one line refusing %s %s", op, code, stderr, wantCode, what, path)
		return
	}
	for _, w := range want {
		if !strings.Contains(line, w) {
			t.Errorf("%s: %q lacks %q", op, line, w)
		}
	}
}

// otherUID is a uid that is neither this process's nor root's.
func otherUID() int {
	if os.Geteuid() == 65534 {
		return 65533
	}
	return 65534
}

// TestOwnershipRefusesFolders: a state folder or sessions folder another
// user could write — 0777, sticky 1777, or owned by another uid — makes
// `harness run` (new and continued sessions) and `harness sessions` fail
// with one line naming the folder, its owner and mode and the fix; the
// folder is not chmodded and nothing is written into it.
func TestOwnershipRefusesFolders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	for _, tc := range []struct {
		name string
		// spoil makes state or state/sessions untrusted and returns which,
		// with what the line must say.
		spoil func(t *testing.T, state string) (what, path string, want []string)
	}{
		{"state folder 0777", func(t *testing.T, state string) (string, string, []string) {
			chmod(t, state, 0o777)
			return "state folder", state, []string{"writable by group or others (mode 0777", "chmod go-w " + state}
		}},
		{"state folder 1777", func(t *testing.T, state string) (string, string, []string) {
			chmod(t, state, 0o777|os.ModeSticky)
			return "state folder", state, []string{"(mode 1777", "chmod go-w " + state}
		}},
		{"sessions folder 0777", func(t *testing.T, state string) (string, string, []string) {
			dir := filepath.Join(state, "sessions")
			chmod(t, dir, 0o777)
			return "sessions folder", dir, []string{"writable by group or others (mode 0777", "chmod go-w " + dir}
		}},
		{"sessions folder 0770", func(t *testing.T, state string) (string, string, []string) {
			dir := filepath.Join(state, "sessions")
			chmod(t, dir, 0o770)
			return "sessions folder", dir, []string{"(mode 0770", "chmod go-w " + dir}
		}},
		{"sessions folder of another uid", func(t *testing.T, state string) (string, string, []string) {
			if os.Geteuid() != 0 {
				t.Skip("chown to another uid needs root (CI runs this as root); host/ownership's TestCheck covers the decision")
			}
			dir := filepath.Join(state, "sessions")
			if err := os.Chown(dir, otherUID(), otherUID()); err != nil {
				t.Fatal(err)
			}
			return "sessions folder", dir, []string{"is owned by ", "uid " + strconv.Itoa(otherUID()), "(mode 0700)", "else remove it"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			state := filepath.Join(t.TempDir(), "state")
			code, _, errOut := runHarness(t, "022", scriptRun(t, state, "say secret-prompt-1234")...)
			if code != 0 {
				t.Fatalf("first run: exit %d\n%s", code, errOut)
			}
			logs, _ := filepath.Glob(filepath.Join(state, "sessions", "*.jsonl"))
			if len(logs) != 1 {
				t.Fatalf("first run left %d logs", len(logs))
			}
			id := strings.TrimSuffix(filepath.Base(logs[0]), ".jsonl")
			before, _ := os.ReadFile(logs[0])
			what, path, want := tc.spoil(t, state)
			fi0, _ := os.Stat(path)

			code, _, errOut = runHarness(t, "022", scriptRun(t, state, "a new session")...)
			oneRefusal(t, "run", code, exitFailed, errOut, what, path, want...)
			code, _, errOut = runHarness(t, "022", scriptRun(t, state, "--session", id, "go on")...)
			oneRefusal(t, "run --session", code, exitFailed, errOut, what, path, want...)
			code, _, errOut = runHarness(t, "022", "sessions", "--state-dir", state)
			oneRefusal(t, "sessions", code, exitFailed, errOut, what, path, want...)

			if fi, _ := os.Stat(path); fi.Mode() != fi0.Mode() {
				t.Errorf("%s was changed from %v to %v", path, fi0.Mode(), fi.Mode())
			}
			if after, _ := os.ReadFile(logs[0]); !bytes.Equal(before, after) {
				t.Error("the session's log changed")
			}
			if now, _ := filepath.Glob(filepath.Join(state, "sessions", "*.jsonl")); len(now) != 1 {
				t.Errorf("%d logs after the refusals, want the first run's only", len(now))
			}
		})
	}
}

// TestOwnershipRefusesForeignLog: a session log whose mode was flipped to
// 0666, or that another uid owns (as another user would leave a copy in
// place of it), is not opened by `harness run --session`: one line names
// the file, its owner and mode and the fix, and nothing is appended or
// recovered. `harness sessions` lists the others and says the same line.
func TestOwnershipRefusesForeignLog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, path string) []string
	}{
		{"mode 0666", func(t *testing.T, path string) []string {
			chmod(t, path, 0o666)
			return []string{"writable by group or others (mode 0666", "chmod go-w " + path}
		}},
		{"mode 0640 of another uid", func(t *testing.T, path string) []string {
			if os.Geteuid() != 0 {
				t.Skip("chown to another uid needs root (CI runs this as root); host/ownership's TestCheck covers the decision")
			}
			if err := os.Chown(path, otherUID(), otherUID()); err != nil {
				t.Fatal(err)
			}
			chmod(t, path, 0o640)
			return []string{"is owned by ", "uid " + strconv.Itoa(otherUID()), "not by root (this user) (mode 0640)", "chown 0 " + path}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			state := filepath.Join(t.TempDir(), "state")
			for _, prompt := range []string{"first secret-prompt-1234", "second one"} {
				if code, _, errOut := runHarness(t, "022", scriptRun(t, state, prompt)...); code != 0 {
					t.Fatalf("run: exit %d\n%s", code, errOut)
				}
			}
			logs, _ := filepath.Glob(filepath.Join(state, "sessions", "*.jsonl"))
			if len(logs) != 2 {
				t.Fatalf("%d logs, want 2", len(logs))
			}
			bad := logs[0] // the first session's, which holds the secret
			if b, _ := os.ReadFile(bad); !bytes.Contains(b, []byte("secret-prompt-1234")) {
				bad = logs[1]
			}
			id := strings.TrimSuffix(filepath.Base(bad), ".jsonl")
			before, _ := os.ReadFile(bad)
			want := tc.spoil(t, bad)

			code, _, errOut := runHarness(t, "022", scriptRun(t, state, "--session", id, "go on")...)
			oneRefusal(t, "run --session", code, exitFailed, errOut, "session log", bad, want...)
			if after, _ := os.ReadFile(bad); !bytes.Equal(before, after) {
				t.Error("the refused log changed")
			}

			code, out, errOut := runHarness(t, "022", "sessions", "--state-dir", state)
			line := strings.TrimSuffix(errOut, "\n")
			if code != exitOK || strings.Contains(line, "\n") || !strings.Contains(line, "session log "+bad+" ") || strings.Contains(line, "secret-prompt-1234") {
				t.Errorf("sessions: exit %d, stderr %q; want one line refusing %s", code, errOut, bad)
			}
			if strings.Contains(out, "secret-prompt-1234") || !strings.Contains(out, "second one") {
				t.Errorf("sessions listed the refused log's prompt, or not the other session:\n%s", out)
			}
		})
	}
}

// TestOwnershipFreshStateDir: a state folder that does not exist, nor its
// parent, is created by `harness run` 0700 whatever the umask — 000, or
// 0277 which would leave a plain mkdir 0500 — with the sessions folder
// 0700, the log 0600, and nothing under it readable or writable by group
// or others; the run calls a real plugin, so the plugin cache is there
// too. (Under umask 0277 a user other than root cannot start the plugins
// themselves — go-plugin's socket folder is 0500 — which this test does not
// judge: it looks at the state folder only.)
func TestOwnershipFreshStateDir(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	plugins := testPlugins(t)
	for _, umask := range []string{"000", "0277"} {
		t.Run("umask "+umask, func(t *testing.T) {
			t.Parallel()
			top := filepath.Join(t.TempDir(), "fresh")
			state := filepath.Join(top, "state")
			script := writeScript(t, todoLine("t1", `[{"content":"check modes","status":"in_progress"}]`), `{"text":"done"}`)
			code, _, errOut := runHarness(t, umask, "run", "--provider", "script", "--script", script, "--yes", "--state-dir", state, "--plugin-dir", plugins, "go")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			want := map[string]fs.FileMode{top: 0o700, state: 0o700, filepath.Join(state, "sessions"): 0o700}
			logs, _ := filepath.Glob(filepath.Join(state, "sessions", "*.jsonl"))
			if len(logs) != 1 {
				t.Fatalf("%d logs, want 1", len(logs))
			}
			want[logs[0]] = 0o600
			for p, m := range want {
				if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != m {
					t.Errorf("%s: mode %v (%v), want %04o", p, fi.Mode().Perm(), err, m)
				}
			}
			n := 0
			filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					t.Error(err)
					return nil
				}
				n++
				fi, _ := d.Info()
				if fi.Mode().Perm()&0o077 != 0 {
					t.Errorf("%s: mode %04o under umask %s; want nothing for group or others", p, fi.Mode().Perm(), umask)
				}
				if fi.IsDir() && fi.Mode().Perm() != 0o700 {
					t.Errorf("folder %s: mode %04o under umask %s, want 0700", p, fi.Mode().Perm(), umask)
				}
				return nil
			})
			if plugins, _ := filepath.Glob(filepath.Join(state, "plugins", "cache", "*")); len(plugins) == 0 {
				t.Errorf("no plugin cache under %s: the run started no plugin (%d entries)", state, n)
			}
		})
	}
}

// TestOwnershipRefusesConfig: a config file or rules file others may
// write stops `harness run` with one line naming it, its owner and mode
// and the fix, without its contents; under `harness acp` a state folder
// others may write makes session/new fail with that line while
// initialize is still answered.
func TestOwnershipRefusesConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	for _, tc := range []struct {
		file, text, what string
		mode             fs.FileMode
		code             int // a bad config file is a usage error, as one that does not parse
	}{
		{"config.toml", "max-steps = 5 # secret-prompt-1234\n", "config file", 0o664, exitUsage},
		{"permissions.json", `{"rules":[{"tool":"bash","prefix":"secret-prompt-1234","action":"allow"}]}`, "permission rules", 0o646, exitFailed},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			path := filepath.Join(home, ".config", "harness", tc.file)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			chmod(t, path, tc.mode)
			code, _, errOut := runHarnessIn(t, "022", home, nil, scriptRun(t, filepath.Join(t.TempDir(), "state"), "hi")...)
			oneRefusal(t, "run", code, tc.code, errOut, tc.what, path, "(mode 0"+strconv.FormatUint(uint64(tc.mode), 8), "chmod go-w "+path)
		})
	}
	t.Run("acp", func(t *testing.T) {
		t.Parallel()
		state := t.TempDir()
		chmod(t, state, 0o777)
		in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}` + "\n"
		code, out, errOut := runHarnessIn(t, "022", "", []byte(in), "acp", "--provider", "script", "--script", writeScript(t, `{"text":"x"}`), "--state-dir", state)
		want := "state folder " + state + " is writable by group or others (mode 0777"
		if code != exitOK || !strings.Contains(out, `"id":1,"result"`) || !strings.Contains(out, `"id":2,"error"`) || !strings.Contains(out, want) {
			t.Errorf("acp: exit %d, stdout:\n%s\nstderr:\n%s\nwant initialize answered and session/new refused with %q", code, out, errOut, want)
		}
	})
}

func chmod(t *testing.T, path string, m fs.FileMode) {
	t.Helper()
	if err := os.Chmod(path, m); err != nil {
		t.Fatal(err)
	}
}
