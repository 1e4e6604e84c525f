//go:build linux

package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// swapTree is a project and an outside folder for the race tests: in the
// project, a.txt and sub/f.txt, and beside them alink (a symlink to the
// outside secret) and sublink (a symlink to the outside folder). The
// outside secret and the outside folder's f.txt hold marker, a string
// found nowhere else.
type swapTree struct {
	proj, out, marker string
}

func newSwapTree(t *testing.T) swapTree {
	t.Helper()
	st := swapTree{proj: t.TempDir(), out: t.TempDir(), marker: "OUTSIDE-" + rand.Text()}
	for p, c := range map[string]string{
		filepath.Join(st.proj, "a.txt"):        "inside a\n",
		filepath.Join(st.proj, "sub", "f.txt"): "inside f\n",
		filepath.Join(st.out, "secret.txt"):    st.marker + "\n",
		filepath.Join(st.out, "dir", "f.txt"):  st.marker + "\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, dest := range map[string]string{
		filepath.Join(st.proj, "alink"):   filepath.Join(st.out, "secret.txt"),
		filepath.Join(st.proj, "sublink"): filepath.Join(st.out, "dir"),
	} {
		if err := os.Symlink(dest, link); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// swap exchanges the names of each pair with renameat2(RENAME_EXCHANGE)
// in a tight loop until stop is called, which returns the number of
// exchanges made.
func swap(t *testing.T, pairs ...[2]string) (stop func() int) {
	t.Helper()
	var n atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			for _, p := range pairs {
				if err := unix.Renameat2(unix.AT_FDCWD, p[0], unix.AT_FDCWD, p[1], unix.RENAME_EXCHANGE); err == nil {
					n.Add(1)
				}
			}
		}
	}()
	var once sync.Once
	stop = func() int {
		once.Do(func() { close(done); wg.Wait() })
		return int(n.Load())
	}
	t.Cleanup(func() { stop() })
	return stop
}

// TestSwapRace races the tools of the real plugin binary, launched as the
// host launches it (and so with nobody to answer its own questions, as
// under --mode accept-edits without a terminal), against a process
// swapping a project file for a symlink to an outside secret and a project
// folder for a symlink to an outside folder, with renameat2
// (RENAME_EXCHANGE) in a tight loop: of 300 reads and greps none shows the
// outside secret, and of 200 writes into the swapped folder none lands in
// the outside folder.
func TestSwapRace(t *testing.T) {
	t.Parallel()
	st := newSwapTree(t)
	c, err := pluginhost.Launch(context.Background(), pluginhost.LaunchConfig{Path: binary})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Configure(t.Context(), pluginapi.ConfigureRequest{HostVersion: "test"}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	f := fixture{c: c, cwd: st.proj}
	stop := swap(t,
		[2]string{filepath.Join(st.proj, "a.txt"), filepath.Join(st.proj, "alink")},
		[2]string{filepath.Join(st.proj, "sub"), filepath.Join(st.proj, "sublink")})

	leaks, ok := 0, 0
	for i := range 300 {
		var res pluginapi.Result
		switch i % 3 {
		case 0:
			res = f.call(t, "read", map[string]any{"file_path": "a.txt"})
		case 1:
			res = f.call(t, "read", map[string]any{"file_path": "sub/f.txt"})
		default:
			res = f.call(t, "grep", map[string]any{"pattern": "OUTSIDE|inside", "output_mode": "content"})
		}
		switch {
		case strings.Contains(res.Content, st.marker):
			leaks++
			if leaks <= 3 {
				t.Logf("leak %d (call %d): %s", leaks, i, res.Content)
			}
		case !res.IsError && strings.Contains(res.Content, "inside"):
			ok++
		default:
			unclear(t, res)
		}
	}
	wrote := 0
	for i := range 200 {
		res := f.call(t, "write", map[string]any{"file_path": fmt.Sprintf("sub/w%03d.txt", i), "content": "written\n"})
		if !res.IsError {
			wrote++
		} else {
			unclear(t, res)
		}
	}
	swaps := stop()
	// The race over, the tools work as before: a write to the project's
	// folder (whichever name it has now) lands in it.
	sub := "sub"
	if fi, err := os.Lstat(filepath.Join(st.proj, sub)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		sub = "sublink"
	}
	calm := f.call(t, "write", map[string]any{"file_path": sub + "/calm.txt", "content": "calm\n"})
	if b, err := os.ReadFile(filepath.Join(st.proj, sub, "calm.txt")); err != nil || string(b) != "calm\n" {
		t.Errorf("a write after the race did not land in the project: %s", calm.Content)
	}
	outside, err := os.ReadDir(filepath.Join(st.out, "dir"))
	if err != nil {
		t.Fatal(err)
	}
	landed := 0
	for _, e := range outside {
		if e.Name() != "f.txt" {
			landed++
		}
	}
	t.Logf("%d swaps; reads and greps: %d of 300 showed the outside secret, %d showed the project; writes: %d of 200 succeeded, %d landed outside", swaps, leaks, ok, wrote, landed)
	if swaps < 100 {
		t.Fatalf("only %d swaps were made: the race was not run", swaps)
	}
	if ok == 0 {
		t.Errorf("no read succeeded: the tools did not work under the race")
	}
	if leaks > 0 {
		t.Errorf("%d of 300 reads and greps showed the outside secret", leaks)
	}
	if landed > 0 {
		t.Errorf("%d of 200 writes landed in the outside folder", landed)
	}
}

// TestSwapRaceApproved: a file outside the project that the user allowed
// is read by its resolved path and checked by device and inode after the
// open, so a process swapping it for a symlink to another secret (and
// its folder for a symlink to another folder) never gets that secret
// read, nor a write outside the allowed folder.
func TestSwapRaceApproved(t *testing.T) {
	t.Parallel()
	st := newSwapTree(t)
	allowed := t.TempDir()
	for p, c := range map[string]string{
		filepath.Join(allowed, "notes.txt"):        "allowed notes\n",
		filepath.Join(allowed, "sub", "notes.txt"): "allowed sub\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, dest := range map[string]string{
		filepath.Join(allowed, "nlink"):   filepath.Join(st.out, "secret.txt"),
		filepath.Join(allowed, "sublink"): filepath.Join(st.out, "dir"),
	} {
		if err := os.Symlink(dest, link); err != nil {
			t.Fatal(err)
		}
	}
	ask := &racyAsker{out: st.out}
	f := fixture{c: plugintest.Start(t, newServer(diskFiles{}, ask).plugin()), cwd: st.proj}
	stop := swap(t,
		[2]string{filepath.Join(allowed, "notes.txt"), filepath.Join(allowed, "nlink")},
		[2]string{filepath.Join(allowed, "sub"), filepath.Join(allowed, "sublink")})
	leaks, ok := 0, 0
	for i := range 300 {
		var res pluginapi.Result
		switch i % 3 {
		case 0:
			res = f.call(t, "read", map[string]any{"file_path": filepath.Join(allowed, "notes.txt")})
		case 1:
			res = f.call(t, "read", map[string]any{"file_path": filepath.Join(allowed, "sub", "notes.txt")})
		default:
			res = f.call(t, "grep", map[string]any{"pattern": "OUTSIDE|allowed", "path": allowed, "output_mode": "content"})
		}
		switch {
		case strings.Contains(res.Content, st.marker):
			leaks++
			if leaks <= 3 {
				t.Logf("leak %d (call %d): %s", leaks, i, res.Content)
			}
		case !res.IsError && strings.Contains(res.Content, "allowed"):
			ok++
		default:
			unclear(t, res)
		}
	}
	wrote := 0
	for i := range 200 {
		res := f.call(t, "write", map[string]any{"file_path": filepath.Join(allowed, "sub", fmt.Sprintf("w%03d.txt", i)), "content": "written\n"})
		if !res.IsError {
			wrote++
		} else {
			unclear(t, res)
		}
	}
	swaps := stop()
	outside, err := os.ReadDir(filepath.Join(st.out, "dir"))
	if err != nil {
		t.Fatal(err)
	}
	landed := len(outside) - 1
	t.Logf("%d swaps; reads and greps: %d of 300 showed the other secret, %d showed the allowed file; writes: %d of 200 succeeded, %d landed in the other folder; %d questions", swaps, leaks, ok, wrote, landed, ask.n.Load())
	if swaps < 100 {
		t.Fatalf("only %d swaps were made: the race was not run", swaps)
	}
	if ok == 0 {
		t.Errorf("no read succeeded: the tools did not work under the race")
	}
	if leaks > 0 {
		t.Errorf("%d of 300 reads and greps showed the other secret", leaks)
	}
	if landed > 0 {
		t.Errorf("%d of 200 writes landed in the other folder", landed)
	}
}

// unclear fails the test for a result that is neither a success nor one
// of the errors a swap may cause: a refusal of a path found outside, or
// the path changing under the call. Each is one line the model can act on.
func unclear(t *testing.T, res pluginapi.Result) {
	t.Helper()
	if !res.IsError {
		return
	}
	c := res.Content
	if strings.Contains(c, "\n") || !strings.Contains(c, "permission denied: ") && !strings.Contains(c, "it changed while this call ran") {
		t.Errorf("a result under the race is not a clear one-line error: %q", c)
	}
}

// racyAsker allows every question except one naming the folder out (the
// user allows the folder they were asked about, never the secret's).
type racyAsker struct {
	out string
	n   atomic.Int64
}

func (a *racyAsker) Ask(_ context.Context, _ *pluginapi.Call, title string) (pluginapi.PermissionResponse, error) {
	a.n.Add(1)
	if strings.Contains(title, a.out) {
		return pluginapi.PermissionResponse{Reason: "permission denied: not that one"}, nil
	}
	return pluginapi.PermissionResponse{Allowed: true}, nil
}
