//go:build linux

package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// leavingServer is the test server run by a shell that first leaves two
// sleeps behind — one in its own session, one behind a double fork — and
// whose argv are told apart by tag.
func leavingServer(bin, tag string) (ServerConfig, []string) {
	setsid, forked := "sleep 3001."+tag, "sleep 3002."+tag
	return ServerConfig{Name: "leaver", Command: "/bin/sh", Args: []string{"-c",
			fmt.Sprintf("(setsid %s &); (%s &); exec %s -linger", setsid, forked, bin)}},
		[]string{setsid, forked}
}

// actAsHost is the test binary re-run as a host (TestServerLeavesNothing):
// it starts leavingServer, calls its echo, prints the server's pid and
// waits to be killed.
func actAsHost(bin, tag string) int {
	cfg, _ := leavingServer(bin, tag)
	set := Start([]ServerConfig{cfg}, Options{Environ: os.Environ()})
	_ = set.Wait(context.Background())
	tools := set.Tools()
	if len(tools) == 0 {
		fmt.Fprintln(os.Stderr, "no tools")
		return 1
	}
	if r := set.Call(context.Background(), "mcp__leaver__echo", json.RawMessage(`{"text":"hi"}`)); r.IsError {
		fmt.Fprintln(os.Stderr, r.Content)
		return 1
	}
	fmt.Println(tools[0].Server.PID) // stdout-ok: read by the test
	select {}
}

// procsNamed lists the live processes whose argv, joined by spaces, is one
// of argvs.
func procsNamed(argvs []string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err != nil {
			continue
		}
		argv := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
		for _, want := range argvs {
			if pid, _ := strconv.Atoi(filepath.Base(d)); argv == want && pidAlive(pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// TestServerLeavesNothing: what a stdio server started — in another
// session, behind a double fork — and the server itself (one that stays
// after its stdin closes) are gone after the host is SIGKILLed, and after
// the session is closed.
func TestServerLeavesNothing(t *testing.T) {
	bin := testServer(t)
	cases := []struct {
		name string
		end  func(t *testing.T, tag string) (server int)
	}{
		{"host SIGKILLed", func(t *testing.T, tag string) int {
			host := exec.Command(os.Args[0], "-test.run=^$")
			host.Env = append(os.Environ(), "MCPCLIENT_TEST_HOST="+bin, "MCPCLIENT_TEST_HOST_TAG="+tag)
			host.Stderr = os.Stderr
			out, err := host.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			defer host.Process.Kill()
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("read the server's pid: %v", err)
			}
			server, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				t.Fatalf("not a pid: %q", line)
			}
			if err := host.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = host.Wait()
			return server
		}},
		{"session closed", func(t *testing.T, tag string) int {
			cfg, _ := leavingServer(bin, tag)
			set := Start([]ServerConfig{cfg}, Options{Environ: os.Environ()})
			tools := started(t, set)
			if len(tools) == 0 {
				t.Fatal("no tools")
			}
			if r := set.Call(context.Background(), "mcp__leaver__echo", json.RawMessage(`{"text":"hi"}`)); r.IsError {
				t.Fatal(r.Content)
			}
			set.Close()
			return tools[0].Server.PID
		}},
	}
	for k, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tag := strconv.Itoa(os.Getpid()*10 + k)
			_, sleeps := leavingServer(bin, tag)
			t.Cleanup(func() {
				for _, pid := range procsNamed(sleeps) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			server := c.end(t, tag)
			deadline := time.Now().Add(10 * time.Second)
			for pidAlive(server) || len(procsNamed(sleeps)) > 0 {
				if time.Now().After(deadline) {
					t.Fatalf("10 s after: server %d alive %v, sleeps left %v", server, pidAlive(server), procsNamed(sleeps))
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
