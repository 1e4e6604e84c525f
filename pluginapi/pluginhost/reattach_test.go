package pluginhost_test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

func TestParseReattach(t *testing.T) {
	t.Parallel()
	good := `{"Protocol":"grpc","ProtocolVersion":1,"Pid":42,"Test":true,"Addr":{"Network":"unix","String":"/tmp/plugin1"}}`
	tests := map[string]struct {
		value   string
		want    map[string]pluginapi.ReattachConfig
		wantErr string
	}{
		"empty": {value: ""},
		"one unix plugin": {
			value: `{"wordcount":` + good + `}`,
			want: map[string]pluginapi.ReattachConfig{"wordcount": {
				Protocol: "grpc", ProtocolVersion: 1, Pid: 42, Test: true,
				Addr: pluginapi.ReattachAddr{Network: "unix", String: "/tmp/plugin1"},
			}},
		},
		"tcp, protocol left out": {
			value: `{"a":{"ProtocolVersion":1,"Pid":7,"Addr":{"Network":"tcp","String":"127.0.0.1:4000"}}}`,
			want: map[string]pluginapi.ReattachConfig{"a": {
				ProtocolVersion: 1, Pid: 7, Addr: pluginapi.ReattachAddr{Network: "tcp", String: "127.0.0.1:4000"},
			}},
		},
		"another protocol version": {
			value:   `{"a":{"Protocol":"grpc","ProtocolVersion":2,"Pid":7,"Addr":{"Network":"unix","String":"/s"}}}`,
			wantErr: `parse HARNESS_REATTACH_PLUGINS: plugin "a": plugin protocol 2; this harness speaks 1`,
		},
		"net/rpc": {
			value:   `{"a":{"Protocol":"netrpc","ProtocolVersion":1,"Pid":7,"Addr":{"Network":"unix","String":"/s"}}}`,
			wantErr: `protocol "netrpc": harness plugins speak grpc`,
		},
		"no address": {
			value:   `{"a":{"ProtocolVersion":1,"Pid":7}}`,
			wantErr: `address network "": want unix or tcp`,
		},
		"no pid": {
			value:   `{"a":{"ProtocolVersion":1,"Addr":{"Network":"unix","String":"/s"}}}`,
			wantErr: "no Pid",
		},
		"not JSON": {value: `wordcount=/tmp/x`, wantErr: "parse HARNESS_REATTACH_PLUGINS: invalid character"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := pluginhost.ParseReattach(tc.value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseReattach (-want +got):\n%s", diff)
			}
		})
	}
	// FormatReattach gives what ParseReattach reads.
	rc := pluginapi.ReattachConfig{Protocol: "grpc", ProtocolVersion: 1, Pid: 42, Test: true, Addr: pluginapi.ReattachAddr{Network: "unix", String: "/tmp/p"}}
	back, err := pluginhost.ParseReattach(pluginapi.FormatReattach("x", rc))
	if err != nil || back["x"] != rc {
		t.Errorf("round trip: %v, %v", back, err)
	}
}

// TestDebugReattach runs a plugin by hand in debug mode, as a developer
// does under a debugger, attaches to it twice from the address it prints,
// calls a tool, detaches, and stops it with Ctrl-C.
func TestDebugReattach(t *testing.T) {
	t.Parallel()
	hooks := t.TempDir() + "/hooks"
	cmd := exec.Command(bin("testplugin"))
	cmd.Env = append(os.Environ(), pluginapi.EnvDebug+"=1", "TESTPLUGIN_HOOKS_FILE="+hooks)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	// The plugin prints a line "\tHARNESS_REATTACH_PLUGINS='{…}'".
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), pluginapi.EnvReattach+"='"); ok {
				found <- strings.TrimSuffix(v, "'")
			}
		}
	}()
	var value string
	select {
	case value = <-found:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s line; stderr:\n%s", pluginapi.EnvReattach, stderr.String())
	}
	plugins, err := pluginhost.ParseReattach(value)
	if err != nil {
		t.Fatal(err)
	}
	rc, ok := plugins["testplugin"]
	if !ok || rc.Pid != cmd.Process.Pid || !rc.Test {
		t.Fatalf("reattach config %+v (from %s)", plugins, value)
	}

	for round := 1; round <= 2; round++ {
		c, err := pluginhost.Attach(t.Context(), "testplugin", rc, testLogger(t))
		if err != nil {
			t.Fatalf("attach, round %d: %v", round, err)
		}
		if err := c.Configure(t.Context(), pluginapi.ConfigureRequest{HostVersion: "test", Host: &plugintest.FakeHost{}}); err != nil {
			t.Fatalf("configure, round %d: %v", round, err)
		}
		res, err := c.Execute(t.Context(), call("echo", `{"text":"hi"}`), nil)
		if err != nil || res.IsError || res.Content != `{"text":"hi"}` {
			t.Fatalf("execute, round %d: %+v, %v", round, res, err)
		}
		if err := c.Close(); err != nil {
			t.Fatalf("close, round %d: %v", round, err)
		}
		// Closing detached: the plugin serves on.
		if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
			t.Fatalf("the plugin is gone after the host detached (round %d): %v", round, err)
		}
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("plugin exit after Ctrl-C: %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the plugin did not stop on Ctrl-C")
	}
	if b, _ := os.ReadFile(hooks); !strings.Contains(string(b), "exit") {
		t.Errorf("OnExit did not run; hooks file: %q", b)
	}
}

// TestAttachNothing fails clearly when nothing listens at the address.
func TestAttachNothing(t *testing.T) {
	t.Parallel()
	rc := pluginapi.ReattachConfig{ProtocolVersion: 1, Pid: os.Getpid(), Addr: pluginapi.ReattachAddr{Network: "unix", String: t.TempDir() + "/none"}}
	_, err := pluginhost.Attach(t.Context(), "ghost", rc, nil)
	if err == nil || !strings.Contains(err.Error(), "attach to plugin ghost at unix ") {
		t.Errorf("Attach = %v", err)
	}
}

// TestDebugModeNeedsNoHost: a plugin launched by a host ignores
// HARNESS_PLUGIN_DEBUG (it leaked from the environment) and does its
// handshake.
func TestDebugModeNeedsNoHost(t *testing.T) {
	t.Parallel()
	c := launch(t, "testplugin", func(cfg *pluginhost.LaunchConfig) {
		cfg.Env = append(cfg.Env, pluginapi.EnvDebug+"=1")
		cfg.StartTimeout = 5 * time.Second
	})
	if _, err := c.Describe(t.Context()); err != nil {
		t.Fatal(err)
	}
}
