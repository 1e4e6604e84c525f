//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// modes are the two ways commands are contained: a PID namespace, and
// the subreaper fallback forced by envNoNamespace.
var modes = []struct {
	name string
	env  []string
}{
	{"namespace", nil},
	{"fallback", []string{envNoNamespace + "=1"}},
}

// BenchmarkTrueFallback is BenchmarkTrue without the PID namespace: every
// command starts its own init.
func BenchmarkTrueFallback(b *testing.B) {
	benchTrue(b, 0, envNoNamespace+"=1")
}

// checkMode fails unless the command runs where the mode says: pid 1 is
// its init in a namespace, the machine's init otherwise.
func checkMode(t *testing.T, f fixture, ns bool) {
	t.Helper()
	got := f.sh(t, "tr '\\0' ' ' </proc/1/cmdline").Content
	if strings.HasPrefix(got, "bash-init ") != ns {
		t.Fatalf("namespace %v, but pid 1 is %q", ns, got)
	}
}

// TestPluginKilled: SIGKILL of the plugin takes every process of its
// commands with it — background, setsid, double fork, a background task
// — in a namespace and in the fallback.
func TestPluginKilled(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c, state := launch(t, m.env...)
			f := fixture{c: c, state: state, cwd: t.TempDir()}
			checkMode(t, f, m.env == nil)
			d := []string{sleepArg(), sleepArg(), sleepArg(), sleepArg(), sleepArg()}
			f.startTask(t, "s1", "sleep "+d[4])
			go func() {
				_, _ = c.Execute(t.Context(), f.req(t, call{id: "fg", args: map[string]any{
					"command": "sleep " + d[0] + " & setsid sleep " + d[1] + " & (sleep " + d[2] + " &); sleep " + d[3]}}), nil)
			}()
			waitSleepers(t, 5*time.Second, 5, d...)
			if err := syscall.Kill(c.PID(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-c.Exited()
			sleepersGone(t, 2*time.Second, d...)
		})
	}
}

// plantedSecrets are ten typical secrets, as a host's environment has
// them.
var plantedSecrets = []string{
	"OPENAI_API_KEY=sk-proj-planted0secret0value01",
	"ANTHROPIC_API_KEY=sk-ant-planted0secret0value02",
	"DATABASE_URL=postgres://app:planted0secret03@db.internal/app",
	"GH_PAT=ghp_planted0secret0value04abcdefghij",
	"SENTRY_DSN=https://planted0secret05@o1.ingest.sentry.io/1",
	"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T0/B0/planted0secret06",
	"AWS_SECRET_ACCESS_KEY=planted0secret07",
	"STRIPE=sk_live_planted0secret08",
	"PGCONN=host=db password=planted0secret09",
	"DEPLOY_KEY_PEM=-----BEGIN OPENSSH PRIVATE KEY-----planted0secret10",
}

// TestSecretsUnreachable: no planted secret shows in env nor in any
// /proc/<pid>/environ a command can read: in a namespace it sees only its
// own processes; in the fallback its parent (the init) has the scrubbed
// environment.
func TestSecretsUnreachable(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c, state := launch(t, append(m.env, plantedSecrets...)...)
			f := fixture{c: c, state: state, cwd: t.TempDir()}
			checkMode(t, f, m.env == nil)
			if m.env == nil {
				checkCapabilities(t, f)
			}
			lines := []string{"env", "cat /proc/$PPID/environ"}
			if m.env == nil {
				lines = append(lines, "cat /proc/1/environ", "cat /proc/[0-9]*/environ", "ls /proc | grep -c '^[0-9]'",
					// As root too: the namespace's /proc stays.
					"umount /proc 2>/dev/null; umount -l /proc 2>/dev/null; ls /proc | grep -c '^[0-9]'",
					"unshare -Urm sh -c 'umount /proc 2>/dev/null; ls /proc' 2>/dev/null | grep -c '^[0-9]'; true")
			}
			for _, line := range lines {
				res := f.sh(t, line)
				if strings.Contains(res.Content, "planted0") {
					t.Errorf("%s shows a secret:\n%s", line, res.Content)
				}
				if line == "env" && !strings.Contains(res.Content, "PATH=") {
					t.Errorf("env shows no PATH:\n%s", res.Content)
				}
				// init, bash, (sh,) ls and grep — or not yet grep: ls may
				// list /proc before bash forks it. The machine has more.
				if n, err := strconv.Atoi(strings.TrimSpace(res.Content)); strings.Contains(line, "grep -c") && (err != nil || n > 5) {
					t.Errorf("%s: the namespace shows %q processes", line, res.Content)
				}
			}
		})
	}
}

// checkCapabilities fails unless bash holds no capability that could
// uncover what its namespace hides: none at all as a user other than root
// (the init's capability to mount does not reach bash, set-uid and file
// capabilities give nothing); as root none of uncovering, in any set, the
// bounding set included.
func checkCapabilities(t *testing.T, f fixture) {
	t.Helper()
	caps := map[string]uint64{}
	for _, l := range strings.Split(f.sh(t, "grep ^Cap /proc/self/status").Content, "\n") {
		name, hex, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		caps[name] = v
	}
	if len(caps) != 5 {
		t.Fatalf("capability sets of bash: %v", caps)
	}
	var forbidden uint64
	for _, c := range uncovering {
		forbidden |= 1 << c
	}
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if os.Getuid() != 0 && set != "CapBnd" && caps[set] != 0 {
			t.Errorf("bash has capabilities: %s %016x", set, caps[set])
		}
		// Without root the bounding set stays full (the init may not drop
		// from it): bash holds nothing, and no exec gives it anything, as
		// the machine's root is not in its user namespace.
		if os.Getuid() == 0 && caps[set]&forbidden != 0 {
			t.Errorf("bash can uncover its namespace: %s %016x", set, caps[set])
		}
	}
}

// TestSpillCap: four background `yes` fill no more than the session's
// spill cap, say so, and their files go when the session ends; those of
// another session go when the plugin exits.
func TestSpillCap(t *testing.T) {
	t.Parallel()
	const limit = 8 << 20
	b := newPlugin(env(), t.TempDir())
	b.spillCap = limit
	f := fixture{state: t.TempDir(), cwd: t.TempDir()}
	f.c = plugintest.Start(t, b.plugin(), plugintest.WithStateDir(f.state))
	var ids []string
	for range 4 {
		id, _ := f.startTask(t, "s1", "yes")
		ids = append(ids, id)
	}
	dir := filepath.Join(f.state, "sessions", "s1")
	deadline := time.Now().Add(10 * time.Second)
	for spillSize(t, dir) < limit-(512<<10) && time.Now().Before(deadline) { // bufio holds up to 64 KiB per file
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // the yes keep printing
	if got := spillSize(t, dir); got > limit {
		t.Errorf("the spill files hold %d bytes, more than the cap of %d", got, limit)
	} else if got < limit/2 {
		t.Errorf("the spill files hold %d bytes only", got)
	}
	for _, id := range ids {
		f.task(t, toolKill, "s1", id)
	}
	notes := ""
	for _, id := range ids {
		notes += f.task(t, toolOutput, "s1", id).Content
	}
	if !strings.Contains(notes, "this session's spill files reached their cap of 8 MiB") {
		t.Errorf("no note of the cap in %.2000q", notes)
	}
	// Another session's spill files, removed at exit.
	res := f.exec(t, call{session: "s2", args: map[string]any{"command": "seq 1 20000"}})
	other := spillIn(t, res.Content)
	if _, err := os.Stat(other); err != nil {
		t.Fatal(err)
	}
	if err := f.c.SessionClosed(t.Context(), "s1"); err != nil {
		t.Fatal(err)
	}
	if got := spillSize(t, dir); got != 0 {
		t.Errorf("%d bytes of spill files left after the session closed", got)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another session's spill file went too: %v", err)
	}
	_ = f.c.Close()
	if _, err := os.Stat(other); err == nil {
		t.Error("a spill file outlived the plugin")
	}
}

// spillSize is the total size of the bash spill files in dir.
func spillSize(t *testing.T, dir string) int64 {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "bash-*.log"))
	var n int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// TestWaitingInit: every command runs in a PID namespace of its own,
// though its init was started ahead of it; the init that waits for the
// next command is the plugin's child, and ends with the plugin — when it
// exits and when it is SIGKILLed.
func TestWaitingInit(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"exit", "SIGKILL"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			c, state := launch(t)
			f := fixture{c: c, state: state, cwd: t.TempDir()}
			// A namespace's inode number is reused at once when it is gone
			// (the kernel hands out the lowest free one), so a namespace is
			// told by its number and its init's start time; the commands
			// last longer than a clock tick, so two inits never share one.
			seen := map[string]bool{}
			for i := range 4 {
				id := strings.TrimSpace(f.sh(t, `read -ra s < /proc/1/stat; echo "$(readlink /proc/self/ns/pid) init started at ${s[21]}"; sleep 0.03`).Content)
				if seen[id] {
					t.Fatalf("command %d ran in the PID namespace of an earlier one: %s", i, id)
				}
				seen[id] = true
			}
			waiting := waitInits(t, c.PID(), func(n int) bool { return n == 1 })
			if end == "exit" {
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := syscall.Kill(c.PID(), syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				<-c.Exited()
			}
			deadline := time.Now().Add(5 * time.Second)
			for syscall.Kill(waiting[0], 0) == nil && !isZombie(waiting[0]) {
				if time.Now().After(deadline) {
					_ = syscall.Kill(waiting[0], syscall.SIGKILL)
					t.Fatalf("the waiting init %d outlived the plugin's %s", waiting[0], end)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// waitInits waits up to 5 s for the inits among the children of pid to
// be as many as ok wants, and returns them.
func waitInits(t *testing.T, pid int, ok func(int) bool) []int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var inits []int
		for _, p := range processes(false) {
			if p.ppid != pid {
				continue
			}
			b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "cmdline"))
			if strings.HasPrefix(string(b), "bash-init\x00") {
				inits = append(inits, p.pid)
			}
		}
		if ok(len(inits)) {
			return inits
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin has %d inits", len(inits))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// isZombie reports whether pid is a zombie (ended, not yet reaped).
func isZombie(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && strings.HasPrefix(s[i+1:], " Z")
}
