package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/harness-dev/harness/internal/logtest"
	"github.com/harness-dev/harness/sandbox"
)

// capsLab is one run's world: a HOME with a planted private key and a
// .bashrc, a cwd, a third-party plugin dir holding capsprobe
// (testdata/capsprobe), a listener on 127.0.0.1 outside any sandbox.
type capsLab struct {
	bin, home, cwd, dir, addr string
}

func newCapsLab(t *testing.T) *capsLab {
	t.Helper()
	l := &capsLab{bin: installedHarness(t), home: t.TempDir(), cwd: t.TempDir(), dir: filepath.Join(t.TempDir(), "plugins")}
	for _, d := range []string{filepath.Join(l.home, ".ssh"), l.dir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{".ssh/id_ed25519": "PRIVATE KEY\n", ".bashrc": "# rc\n"} {
		if err := os.WriteFile(filepath.Join(l.home, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	l.addr = ln.Addr().String()
	return l
}

// build builds capsprobe into the plugin dir, declaring what the -X
// flags set (main.network, main.write, main.read, main.salt).
func (l *capsLab) build(t *testing.T, x ...string) {
	t.Helper()
	var flags []string
	for _, kv := range x {
		flags = append(flags, "-X main."+kv)
	}
	tmp := filepath.Join(t.TempDir(), "capsprobe")
	if out, err := staticBuild("-ldflags", strings.Join(flags, " "), "-o", tmp, "./testdata/capsprobe").CombinedOutput(); err != nil {
		t.Fatalf("build capsprobe: %v\n%s", err, out)
	}
	// Replaced by rename, as an installer does.
	if err := os.Rename(tmp, filepath.Join(l.dir, "capsprobe")); err != nil {
		t.Fatal(err)
	}
}

// harness runs the installed harness in the lab and returns its stdout
// and stderr; it fails the test on a non-zero exit when ok.
func (l *capsLab) harness(t *testing.T, state string, ok bool, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(l.bin, args...)
	cmd.Dir = l.cwd
	cmd.Env = append(installedEnv(state), "HOME="+l.home, "XDG_CONFIG_HOME="+filepath.Join(l.home, ".config"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil && ok {
		t.Fatalf("harness %s: %v\n%s\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// probe runs a turn whose script calls capsprobe's three probes — write
// ~/.bashrc, read ~/.ssh/id_ed25519, connect to the listener — and
// returns each result's text by probe, and harness's stderr; then the
// same write and read through the host's text files.
func (l *capsLab) probe(t *testing.T) (map[string]string, string) {
	t.Helper()
	call := func(id string, args map[string]string) string {
		b, _ := json.Marshal(map[string]any{"id": id, "name": "probe", "args": args})
		return string(b)
	}
	script := writeScript(t, `{"toolCalls":[`+strings.Join([]string{
		call("write", map[string]string{"what": "write", "path": filepath.Join(l.home, ".bashrc")}),
		call("read", map[string]string{"what": "read", "path": filepath.Join(l.home, ".ssh", "id_ed25519")}),
		call("connect", map[string]string{"what": "connect", "addr": l.addr}),
		call("hostwrite", map[string]string{"what": "hostwrite", "path": filepath.Join(l.home, ".bashrc")}),
		call("hostread", map[string]string{"what": "hostread", "path": filepath.Join(l.home, ".ssh", "id_ed25519")}),
	}, ",")+`]}`, `{"text":"done"}`)
	state := t.TempDir()
	_, errOut := l.harness(t, state, true, "run", "--provider", "script", "--script", script, "--yes", "--plugin-dir", l.dir, "probe")
	evs, _ := logtest.ReadLog(t, state)
	got := map[string]string{}
	for _, e := range evs {
		if e["type"] != "tool/result" {
			continue
		}
		d, _ := e["data"].(map[string]any)
		id, _ := d["callId"].(string)
		b, _ := json.Marshal(d)
		got[id] = string(b)
	}
	return got, errOut
}

// TestPluginCapabilities is issue 27's third-party plugin acceptance: a
// plugin that declares nothing is refused each of the three (the file on
// disk unchanged); one that declares a capability is not started until
// the user trusts it — the failure names `harness plugins trust` — and
// then that one succeeds, and only that one; `harness plugins` shows
// what it declared.
func TestPluginCapabilities(t *testing.T) {
	if runtime.GOOS != "linux" || sandbox.LandlockABI() == 0 {
		t.Skip("plugins are confined on Linux with Landlock")
	}
	t.Parallel()
	tests := []struct {
		name    string
		declare func(l *capsLab) []string
		shown   func(l *capsLab) string // in harness plugins, once trusted
		allowed string                  // the probe that succeeds once trusted; "" none
		trust   bool                    // it declares more than the default: trusted first
	}{
		{name: "default", declare: func(*capsLab) []string { return nil }, shown: func(*capsLab) string { return "default" }},
		{name: "network", declare: func(*capsLab) []string { return []string{"network=1"} },
			shown: func(*capsLab) string { return "network" }, allowed: "connect", trust: true},
		{name: "write bashrc", declare: func(l *capsLab) []string { return []string{"write=" + filepath.Join(l.home, ".bashrc")} },
			shown: func(l *capsLab) string { return "write " + filepath.Join(l.home, ".bashrc") }, allowed: "write", trust: true},
		{name: "read ssh", declare: func(l *capsLab) []string { return []string{"read=" + filepath.Join(l.home, ".ssh")} },
			shown: func(l *capsLab) string { return "read " + filepath.Join(l.home, ".ssh") }, allowed: "read", trust: true},
		// Reading everything, as fs does, still leaves the credential
		// stores hidden where the keeper gets a mount namespace (root);
		// the host reads none of them for it, root or not.
		{name: "read everything", declare: func(*capsLab) []string { return []string{"read=/"} },
			shown: func(*capsLab) string { return "read /" }, allowed: map[bool]string{false: "read"}[os.Getuid() == 0], trust: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newCapsLab(t)
			l.build(t, tc.declare(l)...)
			if tc.trust {
				got, errOut := l.probe(t)
				for _, id := range []string{"write", "read", "connect"} {
					if !strings.Contains(got[id], `unknown tool \"probe\"`) {
						t.Errorf("untrusted: %s ran: %s", id, got[id])
					}
				}
				if !strings.Contains(errOut, "it is not started: if you trust it, run harness plugins trust capsprobe") {
					t.Errorf("untrusted: stderr does not name harness plugins trust:\n%s", errOut)
				}
				out, _ := l.harness(t, t.TempDir(), true, "plugins", "trust", "--plugin-dir", l.dir, "capsprobe")
				if !strings.Contains(out, "asks for: "+tc.shown(l)) {
					t.Errorf("plugins trust says %q, want it to show %q", out, tc.shown(l))
				}
			}
			got, errOut := l.probe(t)
			for _, id := range []string{"write", "read", "connect", "hostwrite", "hostread"} {
				want := "refused " + id
				// What it may do itself, the host does for it; not more.
				if id == tc.allowed || id == "host"+tc.allowed && tc.name != "read everything" {
					want = "did " + id
				}
				if !strings.Contains(got[id], want) {
					t.Errorf("%s: result %s, want %q\n%s", id, got[id], want, errOut)
				}
			}
			rc, _ := os.ReadFile(filepath.Join(l.home, ".bashrc"))
			if wrote := string(rc) != "# rc\n"; wrote != (tc.allowed == "write") {
				t.Errorf("~/.bashrc written: %v, want %v", wrote, tc.allowed == "write")
			}
			out, _ := l.harness(t, t.TempDir(), true, "plugins", "--plugin-dir", l.dir)
			if line := lineWith(out, "capsprobe"); !strings.Contains(line, tc.shown(l)) {
				t.Errorf("harness plugins: %q does not show %q\n%s", line, tc.shown(l), out)
			}
		})
	}
}

// TestPluginTrustChangedBinary trusts capsprobe declaring the network,
// replaces its binary by one declaring the same with other bytes, and
// checks that the host refuses the new one, saying it changed and how to
// trust it, until it is trusted again.
func TestPluginTrustChangedBinary(t *testing.T) {
	if runtime.GOOS != "linux" || sandbox.LandlockABI() == 0 {
		t.Skip("plugins are confined on Linux with Landlock")
	}
	t.Parallel()
	l := newCapsLab(t)
	l.build(t, "network=1")
	l.harness(t, t.TempDir(), true, "plugins", "trust", "--plugin-dir", l.dir, "capsprobe")
	if got, _ := l.probe(t); !strings.Contains(got["connect"], "did connect") {
		t.Fatalf("trusted: connect %s", got["connect"])
	}
	l.build(t, "network=1", "salt=.1")
	got, errOut := l.probe(t)
	if !strings.Contains(got["connect"], `unknown tool \"probe\"`) {
		t.Errorf("changed binary ran: %s", got["connect"])
	}
	if !strings.Contains(errOut, "plugin capsprobe changed since you trusted it") || !strings.Contains(errOut, "run harness plugins trust capsprobe") {
		t.Errorf("stderr does not say it changed and how to trust it:\n%s", errOut)
	}
	l.harness(t, t.TempDir(), true, "plugins", "trust", "--plugin-dir", l.dir, "capsprobe")
	if got, _ := l.probe(t); !strings.Contains(got["connect"], "did connect") {
		t.Errorf("trusted again: connect %s", got["connect"])
	}
}

// lineWith is the first line of s holding sub.
func lineWith(s, sub string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			return line
		}
	}
	return fmt.Sprintf("(no line with %q)", sub)
}
