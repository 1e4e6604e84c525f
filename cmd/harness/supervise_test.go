//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/internal/logtest"
)

// builtSpawner is host/toolbox/testdata/spawner, built once per run into
// a plugin folder of its own.
var builtSpawner struct {
	once sync.Once
	dir  string
	err  error
}

// spawnerPlugins returns a plugin folder holding only the spawner test
// plugin: tool spawn leaves a setsid'd, a double-forked and a plain child
// sleep behind and writes their pids to a file.
func spawnerPlugins(t testing.TB) string {
	t.Helper()
	builtSpawner.once.Do(func() {
		dir, err := testTempDir("harness-spawner-")
		if err != nil {
			builtSpawner.err = err
			return
		}
		if out, err := staticBuild("-o", filepath.Join(dir, "spawner"), "../../host/toolbox/testdata/spawner").CombinedOutput(); err != nil {
			builtSpawner.err = fmt.Errorf("go build spawner: %v\n%s", err, out)
			return
		}
		builtSpawner.dir = dir
		builtSpawner.err = trustPlugins(dir, "spawner") // it declares exec and writes
	})
	if builtSpawner.err != nil {
		t.Fatal(builtSpawner.err)
	}
	return builtSpawner.dir
}

// spawnCall is a script line calling the spawner's spawn tool.
func spawnCall(id, pidfile string, hold bool) string {
	b, err := json.Marshal(map[string]any{"toolCalls": []map[string]any{{"id": id, "name": "spawn",
		"args": map[string]any{"pidfile": pidfile, "hold": hold}}}})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// leftProc is a process by pid and start time (/proc/<pid>/stat field
// 22), so that a pid reused since is not taken for it.
type leftProc struct {
	what  string
	pid   int
	start string
}

// statFields returns /proc/<pid>/stat's fields after the command name
// (state, ppid, …), or nil once the process is gone.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

func (p leftProc) running() bool {
	f := statFields(p.pid)
	return len(f) > 19 && f[0] != "Z" && f[19] == p.start
}

// readSpawned waits up to 60 s for the spawner's pid file and returns the
// processes it names: the plugin, its parent — its keeper: not harness
// (hostPID), and a keeper by its command line if it still runs — and the
// three sleeps, each with its start time.
func readSpawned(t testing.TB, path string, hostPID int, exited <-chan error) []leftProc {
	t.Helper()
	var b []byte
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var err error
		if b, err = os.ReadFile(path); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("harness exited (%v) before the plugin wrote its pids", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no pid file from the spawner plugin in 60 s")
		}
	}
	var procs []leftProc
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("pid file line %q", line)
		}
		pid, err := strconv.Atoi(f[1])
		if err != nil || f[2] == "?" {
			t.Fatalf("pid file line %q", line)
		}
		procs = append(procs, leftProc{what: f[0], pid: pid, start: f[2]})
	}
	if len(procs) != 5 || procs[1].what != "parent" {
		t.Fatalf("pid file names %v, want the plugin, its parent, setsid, doublefork and child", procs)
	}
	keeper := procs[1]
	if keeper.pid == hostPID {
		t.Errorf("the plugin %d is harness's own child, not under a keeper", procs[0].pid)
	}
	if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", keeper.pid)); keeper.running() && !strings.Contains(string(cmdline), "--harness-keeper-v1") {
		t.Errorf("the plugin's parent %d is %q, not a keeper", keeper.pid, cmdline)
	}
	procs[1].what = "keeper"
	return procs
}

// noneRunning waits, generously, for every process of procs to be gone,
// logs how long that took and fails naming those still running.
func noneRunning(t testing.TB, after string, procs []leftProc) {
	t.Helper()
	begin := time.Now()
	for deadline := begin.Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var left []string
		for _, p := range procs {
			if p.running() {
				left = append(left, fmt.Sprintf("%s %d", p.what, p.pid))
			}
		}
		if len(left) == 0 {
			t.Logf("all %d gone %v after %s", len(procs), time.Since(begin).Round(time.Millisecond), after)
			return
		}
		if time.Now().After(deadline) {
			for _, p := range procs {
				if p.running() {
					_ = syscall.Kill(p.pid, syscall.SIGKILL)
				}
			}
			t.Fatalf("%s still running 10 s after %s", strings.Join(left, ", "), after)
		}
	}
}

// TestPluginLeavesNothing: a plugin that starts `setsid sleep`, a double
// fork and a plain child leaves none of them — nor itself, nor its keeper
// — after `harness run` ends, after `harness acp` gets EOF on stdin, after
// harness is SIGKILLed mid-call, and after the plugin itself is SIGKILLed
// (as by the OOM killer) while harness lives, which then goes on: the
// call is an error result with the plugin's last stderr line, the next
// call restarts it, and the log names the plugin's own pid.
func TestPluginLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin, _ := buildHarness(t)
	plugins := spawnerPlugins(t)
	for _, tc := range []string{"run ends", "acp EOF", "harness SIGKILLed", "plugin SIGKILLed"} {
		t.Run(tc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			state := filepath.Join(dir, "state")
			pids, pids2 := filepath.Join(dir, "pids"), filepath.Join(dir, "pids2")
			var script string
			switch tc {
			case "run ends", "acp EOF":
				script = writeScript(t, spawnCall("s1", pids, false), `{"text":"done"}`)
			case "harness SIGKILLed":
				script = writeScript(t, spawnCall("s1", pids, true), `{"text":"not reached"}`)
			case "plugin SIGKILLed":
				script = writeScript(t, spawnCall("s1", pids, true), spawnCall("s2", pids2, false), `{"text":"waiting","hang":true}`)
			}
			cmdName := "run"
			if tc == "acp EOF" {
				cmdName = "acp"
			}
			args := []string{cmdName, "--yes", "--provider", "script", "--script", script, "--state-dir", state,
				"--plugin-dir", plugins, "--permissions", filepath.Join(dir, "no-rules.json")}
			if cmdName == "run" {
				args = append(args, "leave things behind")
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			var stderr logtest.Buffer
			cmd.Stderr = &stderr
			var acp *acpDriver
			if cmdName == "acp" {
				acp = startACPDriver(t, cmd)
			} else if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				if t.Failed() {
					t.Logf("harness's stderr:\n%s", stderr.String())
				}
			})
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			waitExit := func() {
				t.Helper()
				select {
				case <-exited:
				case <-time.After(60 * time.Second):
					t.Fatal("harness did not exit in 60 s")
				}
			}

			switch tc {
			case "run ends":
				procs := readSpawned(t, pids, cmd.Process.Pid, exited)
				waitExit()
				if code := cmd.ProcessState.ExitCode(); code != 0 {
					t.Errorf("harness run exited %d", code)
				}
				noneRunning(t, "harness run ended", procs)

			case "acp EOF":
				resp := acp.call(t, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, dir), true)
				var m struct {
					Result struct{ SessionID string } `json:"result"`
				}
				if err := json.Unmarshal([]byte(resp), &m); err != nil || m.Result.SessionID == "" {
					t.Fatalf("session/new answered %s", resp)
				}
				acp.call(t, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"leave things behind"}]}`, m.Result.SessionID), true)
				procs := readSpawned(t, pids, cmd.Process.Pid, exited)
				go func() {
					for range acp.lines { // keep stdout drained
					}
				}()
				if err := acp.in.Close(); err != nil {
					t.Fatal(err)
				}
				waitExit()
				noneRunning(t, "harness acp got EOF", procs)

			case "harness SIGKILLed":
				procs := readSpawned(t, pids, cmd.Process.Pid, exited)
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				waitExit()
				noneRunning(t, "harness was SIGKILLed mid-call", procs)

			case "plugin SIGKILLed":
				procs := readSpawned(t, pids, cmd.Process.Pid, exited)
				plugin := procs[0].pid
				if err := syscall.Kill(plugin, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				noneRunning(t, "the plugin was SIGKILLed", procs)
				// harness lives on: the next call restarts the plugin.
				procs2 := readSpawned(t, pids2, cmd.Process.Pid, exited)
				if procs2[0].pid == plugin {
					t.Errorf("the second call ran on the killed plugin's pid %d", plugin)
				}
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				waitExit()
				noneRunning(t, "harness was stopped", procs2)

				evs, _ := logtest.ReadLog(t, state)
				var callPIDs []float64
				var results []map[string]any
				for _, ev := range evs {
					data, _ := ev["data"].(map[string]any)
					switch ev["type"] {
					case "tool/call":
						p, _ := data["plugin"].(map[string]any)
						pid, _ := p["pid"].(float64)
						callPIDs = append(callPIDs, pid)
					case "tool/result":
						results = append(results, data)
					}
				}
				// Provenance names the plugin, never its keeper. (The
				// second call's names the process of the step's tool
				// list, taken before the restart: the toolbox's rule.)
				if len(callPIDs) != 2 || int(callPIDs[0]) != plugin {
					t.Errorf("tool/call plugin pids %v, want the plugin's own %d first (its keeper is %d)", callPIDs, plugin, procs[1].pid)
				}
				for _, pid := range callPIDs {
					if int(pid) == procs[1].pid || int(pid) == procs2[1].pid {
						t.Errorf("a tool/call names the keeper %d", int(pid))
					}
				}
				if len(results) < 2 {
					t.Fatalf("%d tool/results in the log, want 2", len(results))
				}
				first, _ := json.Marshal(results[0])
				if results[0]["isError"] != true || !strings.Contains(string(first), "crashed during the call") ||
					!strings.Contains(string(first), "spawner: holding") {
					t.Errorf("the killed call's result = %s, want the crash with the plugin's last stderr line", first)
				}
				if results[1]["isError"] == true {
					t.Errorf("the call after the crash failed: %v", results[1])
				}
			}
		})
	}
}
