package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// The test binary re-executed as a sandboxed child: it applies the
// policy of envPolicy (in fresh namespaces when envMounts is set: Mounts
// first), then runs `sh -c` of its argument from the confined thread.
const (
	envChild  = "SANDBOX_TEST_CHILD"
	envPolicy = "SANDBOX_TEST_POLICY"
	envMounts = "SANDBOX_TEST_MOUNTS"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" {
		os.Exit(child())
	}
	if os.Getenv(envProbeChild) != "" {
		os.Exit(probeChild())
	}
	os.Exit(m.Run())
}

func child() int {
	runtime.LockOSThread()
	p, err := Decode([]byte(os.Getenv(envPolicy)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 100
	}
	if os.Getenv(envMounts) != "" {
		if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			fmt.Fprintln(os.Stderr, "private:", err)
			return 100
		}
		if err := Mounts(p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 100
		}
	}
	if _, err := Restrict(p, Namespaces{Mount: os.Getenv(envMounts) != ""}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 100
	}
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", os.Args[len(os.Args)-1]}, &syscall.ProcAttr{
		Env: os.Environ(), Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 100
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		return 100
	}
	return ws.ExitStatus()
}

// runChild runs script under p; mounts: in new mount (and user, unless
// root) namespaces, Mounts applied.
func runChild(t *testing.T, p Policy, mounts bool, script string) (string, int) {
	t.Helper()
	b, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", script)
	cmd.Env = append(os.Environ(), envChild+"=1", envPolicy+"="+string(b))
	if mounts {
		cmd.Env = append(cmd.Env, envMounts+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
		if os.Getuid() != 0 {
			cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
			cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
			cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
			cmd.SysProcAttr.AmbientCaps = []uintptr{21} // CAP_SYS_ADMIN, to mount
		}
	}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run the child: %v", err)
	}
	if code == 100 {
		t.Fatalf("the child could not set up: %s", out)
	}
	return string(out), code
}

// TestRestrict: Landlock lets writes through beneath the roots and the
// temp folder only; seccomp refuses AF_INET sockets (no network
// namespace here), unshare and ptrace; Mode off changes nothing.
func TestRestrict(t *testing.T) {
	t.Parallel()
	if Probe().LandlockABI == 0 {
		t.Skip("no Landlock in this kernel")
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	// ROOT, OTHER and TEMP are fresh folders for each run.
	tests := []struct {
		name   string
		script string
		jailed bool // fails in the sandbox; works with it off
	}{
		{"write in the root", "echo x > ROOT/f && mkdir ROOT/d && ln -s f ROOT/l && mv ROOT/f ROOT/d/f", false},
		{"write in the temp folder", "echo x > TEMP/f", false},
		{"dev null", "echo x > /dev/null", false},
		{"write beside", "echo x > OTHER/f", true},
		{"rename out of the root", "echo x > ROOT/g && mv ROOT/g OTHER/g", true},
		{"link out of the root", "ln -s /etc/passwd OTHER/l", true},
		{"connect", fmt.Sprintf("/usr/bin/python3 -c \"import socket; socket.create_connection(('127.0.0.1', %d), 5)\"", port), true},
		{"unshare", "unshare -U true", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.script, "python3") {
				if _, err := os.Stat("/usr/bin/python3"); err != nil {
					t.Skip("no /usr/bin/python3")
				}
			}
			if strings.HasPrefix(tt.script, "unshare") && os.Getuid() != 0 && !Probe().UserNS {
				t.Skip("no user namespaces here to refuse")
			}
			run := func(on bool) (string, int) {
				root, other, temp := t.TempDir(), t.TempDir(), t.TempDir()
				script := strings.NewReplacer("ROOT", root, "OTHER", other, "TEMP", temp).Replace(tt.script)
				p := Policy{Mode: Off, Network: NetworkOn}
				if on {
					p = Policy{Mode: WorkspaceWrite, Network: NetworkOff, WritableRoots: []string{root}, TempDir: temp, PidsLimit: 64}
				}
				return runChild(t, p, false, script)
			}
			if out, code := run(false); code != 0 {
				t.Fatalf("with the sandbox off: exit %d\n%s", code, out)
			}
			out, code := run(true)
			if jailed := code != 0; jailed != tt.jailed {
				t.Errorf("in the sandbox: exit %d, want refused=%v\n%s", code, tt.jailed, out)
			}
		})
	}
}

// TestMounts: in a mount namespace, a hidden folder reads empty, a
// hidden file reads as nothing, a read-only path inside a hidden folder
// is shown read-only, a protected path inside a writable root takes no
// write, and a git folder's missing hooks folder is made and bound.
func TestMounts(t *testing.T) {
	t.Parallel()
	k := Probe()
	if !k.MountNS {
		t.Skip("no mount namespace here")
	}
	root, home := t.TempDir(), t.TempDir()
	write := func(path, s string) {
		t.Helper()
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".ssh/id"), "planted")
	write(filepath.Join(home, ".netrc"), "planted")
	write(filepath.Join(home, "state/sessions/s1/spill.log"), "shown")
	write(filepath.Join(home, "state/sessions/s2.jsonl"), "planted")
	write(filepath.Join(root, ".vscode/settings.json"), "ORIGINAL")
	runtimeDir := filepath.Join(home, "run")
	write(filepath.Join(runtimeDir, "bus"), "planted")
	write(filepath.Join(root, ".git/HEAD"), "ref: refs/heads/main\n")
	_ = os.MkdirAll(filepath.Join(root, ".git/objects"), 0o755)
	p := Build(Setup{Mode: WorkspaceWrite, Cwd: root, Home: home, RuntimeDir: runtimeDir,
		Harness: []string{filepath.Join(home, "state")}, Show: []string{filepath.Join(home, "state/sessions/s1")}})
	script := strings.Join([]string{
		"cat " + home + "/.ssh/id " + home + "/.netrc " + home + "/state/sessions/s2.jsonl 2>&1",
		"ls -A " + home + "/.ssh " + runtimeDir,
		"cat " + runtimeDir + "/bus 2>&1",
		"cat " + home + "/state/sessions/s1/spill.log",
		"echo x > " + home + "/state/sessions/s1/spill.log 2>/dev/null && echo WROTE-SPILL",
		"echo x > " + root + "/.vscode/settings.json 2>/dev/null && echo WROTE-VSCODE",
		"echo x > " + root + "/.git/hooks/pre-commit 2>/dev/null && echo WROTE-HOOK",
		"echo x > " + root + "/ok && echo wrote-ok",
	}, "; ")
	out, _ := runChild(t, p, true, script)
	for _, bad := range []string{"planted", "WROTE-"} {
		if strings.Contains(out, bad) {
			t.Errorf("%q got through:\n%s", bad, out)
		}
	}
	for _, good := range []string{"shown", "wrote-ok"} {
		if !strings.Contains(out, good) {
			t.Errorf("no %q:\n%s", good, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".git/hooks")); err != nil {
		t.Errorf("the missing hooks folder was not made: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".vscode/settings.json")); string(b) != "ORIGINAL" {
		t.Errorf(".vscode/settings.json holds %q", b)
	}
}

// TestMountsPinFolders: a folder holding a protected or hidden path
// inside a writable root cannot be moved aside (nor removed) to make a
// new one in its place whose entries are not bound: .git (its hooks and
// config), and harness's config folder's parent when the cwd is the home
// folder.
func TestMountsPinFolders(t *testing.T) {
	t.Parallel()
	if !Probe().MountNS {
		t.Skip("no mount namespace here")
	}
	tests := []struct {
		name   string
		script string // ROOT is the writable root, also the home folder
	}{
		{"mv .git aside", "mv ROOT/.git ROOT/.git-aside && echo MOVED; mkdir -p ROOT/.git/hooks; echo x > ROOT/.git/hooks/pre-commit && echo WROTE"},
		{"mv .git aside, cp -a it back", "mv ROOT/.git ROOT/g && cp -a ROOT/g ROOT/.git && echo MOVED; echo x >> ROOT/.git/config && echo WROTE"},
		{"rename .git through python", "python3 -c 'import os; os.rename(\"ROOT/.git\", \"ROOT/g\")' && echo MOVED"},
		{"rm -rf .git, make it again", "rm -rf ROOT/.git; mkdir -p ROOT/.git/hooks && echo x > ROOT/.git/hooks/pre-commit && echo WROTE"},
		{"mv .config aside, harness config in it", "mv ROOT/.config ROOT/c && echo MOVED; mkdir -p ROOT/.config/harness; echo x > ROOT/.config/harness/permissions.json && echo WROTE"},
		{"mv .ssh aside", "mv ROOT/.ssh ROOT/s && echo MOVED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for _, f := range []string{".git/HEAD", ".git/config", ".git/hooks/pre-push", ".config/harness/permissions.json", ".ssh/id"} {
				_ = os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
				if err := os.WriteFile(filepath.Join(root, f), []byte("ORIGINAL"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_ = os.MkdirAll(filepath.Join(root, ".git/objects"), 0o755)
			p := Build(Setup{Mode: WorkspaceWrite, Cwd: root, Home: root, Harness: []string{filepath.Join(root, ".config/harness")}})
			out, _ := runChild(t, p, true, strings.ReplaceAll(tc.script, "ROOT", root)+"; echo done")
			if strings.Contains(out, "MOVED") || strings.Contains(out, "WROTE") || !strings.Contains(out, "done") {
				t.Errorf("got through:\n%s", out)
			}
			for _, f := range []string{".git/config", ".git/hooks/pre-push", ".config/harness/permissions.json"} {
				if b, _ := os.ReadFile(filepath.Join(root, f)); string(b) != "ORIGINAL" {
					t.Errorf("%s holds %q", f, b)
				}
			}
			if _, err := os.Stat(filepath.Join(root, ".git/hooks/pre-commit")); err == nil {
				t.Error(".git/hooks/pre-commit was made")
			}
		})
	}
}

// TestWriteRightsABI1: at ABI 1 the rules ask no refer right, which
// go-landlock's best effort would meet by enforcing nothing (its
// FSRule.downgrade); from ABI 2 they do.
func TestWriteRightsABI1(t *testing.T) {
	t.Parallel()
	if r := writeRights(1); r&landlock.AccessFSSet(ll.AccessFSRefer) != 0 || r&landlock.AccessFSSet(ll.AccessFSWriteFile) == 0 {
		t.Errorf("ABI 1 rights %v", r)
	}
	if r := writeRights(7); r&landlock.AccessFSSet(ll.AccessFSRefer) == 0 {
		t.Errorf("ABI 7 rights %v lack refer: renames inside the roots would be refused", r)
	}
}
