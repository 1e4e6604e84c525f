//go:build linux

package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/harness-dev/harness/internal/logtest"
)

// TestRunSwapRace: `harness run --mode accept-edits` with nobody to ask,
// the real fs plugin and the host's text files, while a process swaps a
// project file for a symlink to an outside secret and a project folder
// for a symlink to an outside folder with renameat2(RENAME_EXCHANGE) in a
// tight loop. Of 300 reads and greps the model asks for, no result (and
// nothing in the log) holds the secret; of 200 writes into the swapped
// folder, none lands in the outside folder. Every refusal is one line.
func TestRunSwapRace(t *testing.T) {
	t.Parallel()
	proj, out, state := t.TempDir(), t.TempDir(), t.TempDir()
	marker := "OUTSIDE-" + rand.Text()
	for p, c := range map[string]string{
		filepath.Join(proj, "a.txt"):        "inside a\n",
		filepath.Join(proj, "sub", "f.txt"): "inside f\n",
		filepath.Join(out, "secret.txt"):    marker + "\n",
		filepath.Join(out, "dir", "f.txt"):  marker + "\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(out, "secret.txt"), filepath.Join(proj, "alink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "dir"), filepath.Join(proj, "sublink")); err != nil {
		t.Fatal(err)
	}
	call := func(id, name string, args map[string]string) string {
		b, _ := json.Marshal(args)
		return fmt.Sprintf(`{"id":%q,"name":%q,"args":%s}`, id, name, b)
	}
	var reads, writes []string
	for i := range 300 {
		id := fmt.Sprintf("r%03d", i)
		switch i % 3 {
		case 0:
			reads = append(reads, call(id, "read", map[string]string{"file_path": "a.txt"}))
		case 1:
			reads = append(reads, call(id, "read", map[string]string{"file_path": "sub/f.txt"}))
		default:
			reads = append(reads, call(id, "grep", map[string]string{"pattern": "OUTSIDE|inside", "output_mode": "content"}))
		}
	}
	for i := range 200 {
		writes = append(writes, call(fmt.Sprintf("w%03d", i), "write", map[string]string{"file_path": fmt.Sprintf("sub/w%03d.txt", i), "content": "written\n"}))
	}
	script := writeScript(t, `{"toolCalls":[`+strings.Join(reads, ",")+`]}`, `{"toolCalls":[`+strings.Join(writes, ",")+`]}`, `{"text":"done"}`)
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t),
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script, "HARNESS_MAX_STEPS": "10",
		"HARNESS_PERMISSIONS_FILE": filepath.Join(t.TempDir(), "no-rules.json")}
	id := storedSession(t, state, proj)

	var swaps atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		pairs := [][2]string{{filepath.Join(proj, "a.txt"), filepath.Join(proj, "alink")}, {filepath.Join(proj, "sub"), filepath.Join(proj, "sublink")}}
		for {
			select {
			case <-done:
				return
			default:
			}
			for _, p := range pairs {
				if unix.Renameat2(unix.AT_FDCWD, p[0], unix.AT_FDCWD, p[1], unix.RENAME_EXCHANGE) == nil {
					swaps.Add(1)
				}
			}
		}
	})
	code, stdout, stderr := harness(t, env, "run", "--mode", "accept-edits", "--session", id, "go")
	close(done)
	wg.Wait()
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}

	evs, logPath := logtest.ReadLog(t, state)
	leaks, readOK, wrote, results := 0, 0, 0, 0
	for _, e := range evs {
		d, _ := e["data"].(map[string]any)
		if e["type"] != "tool/result" {
			continue
		}
		results++
		callID, _ := d["callId"].(string)
		content, _ := d["content"].(string)
		isError := d["isError"] == true
		switch {
		case strings.Contains(content, marker):
			leaks++
			if leaks <= 3 {
				t.Logf("leak in %s: %s", callID, content)
			}
		case isError && (strings.Contains(strings.TrimSpace(content), "\n") ||
			!strings.Contains(content, "permission denied") && !strings.Contains(content, "changed while")):
			t.Errorf("%s: not a clear one-line error: %q", callID, content)
		case !isError && strings.HasPrefix(callID, "r"):
			readOK++
		case !isError:
			wrote++
		}
	}
	entries, err := os.ReadDir(filepath.Join(out, "dir"))
	if err != nil {
		t.Fatal(err)
	}
	landed := len(entries) - 1
	t.Logf("%d swaps; reads and greps: %d of 300 showed the outside secret, %d the project; writes: %d of 200 succeeded, %d landed outside", swaps.Load(), leaks, readOK, wrote, landed)
	if results != 500 {
		t.Fatalf("%d tool results, want 500", results)
	}
	if swaps.Load() < 100 {
		t.Fatalf("only %d swaps: the race was not run", swaps.Load())
	}
	if readOK == 0 {
		t.Error("no read succeeded under the race")
	}
	if leaks > 0 {
		t.Errorf("%d of 300 reads and greps showed the outside secret", leaks)
	}
	if b, _ := os.ReadFile(logPath); strings.Contains(string(b), marker) {
		t.Error("the outside secret reached the log")
	}
	if landed > 0 {
		t.Errorf("%d of 200 writes landed in the outside folder", landed)
	}
}
