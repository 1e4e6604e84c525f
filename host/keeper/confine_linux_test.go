package keeper_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/keeper"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/sandbox"
)

// TestWrapConfined runs /bin/sh under a keeper confined to a profile
// granting exec (sh runs touch) and a writable folder, with a private
// temp folder: writes in the folder and $TMPDIR work, a write beside it
// is refused, the socket folder of $PLUGIN_UNIX_SOCKET_DIR is writable,
// and the temp folder is gone once the process ended.
func TestWrapConfined(t *testing.T) {
	if sandbox.LandlockABI() == 0 {
		t.Skip("no Landlock in this kernel")
	}
	root := t.TempDir()
	w, beside, sock := filepath.Join(root, "w"), filepath.Join(root, "beside"), filepath.Join(root, "sock")
	for _, d := range []string{w, beside, sock} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	script := `for f in "$W/ok" "$TMPDIR/ok" "$PLUGIN_UNIX_SOCKET_DIR/ok" "$B/no"; do (: > "$f") 2>/dev/null && echo "wrote $f" || echo "refused $f"; done; echo "tmp $TMPDIR"`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "W=" + w, "B=" + beside, "PLUGIN_UNIX_SOCKET_DIR=" + sock, "TMPDIR=" + root}
	k, err := keeper.WrapConfined(cmd, sandbox.Profile{Read: []string{root}, Write: []string{w}, Exec: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pluginhost.StartProcess(k.Cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Started(); err != nil {
		t.Fatal(err)
	}
	p.CloseStdin()
	b, _ := io.ReadAll(p.Stdout())
	<-p.Exited()
	out := string(b)
	var tmp string
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "tmp "); ok {
			tmp = v
		}
	}
	for _, want := range []string{"wrote " + w + "/ok", "wrote " + tmp + "/ok", "wrote " + sock + "/ok", "refused " + beside + "/no"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if tmp == root || tmp == "" {
		t.Errorf("TMPDIR %q, want a private folder", tmp)
	} else if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the private temp folder %s is left: %v", tmp, err)
	}
}

// TestWrapConfinedDropsCaps: a process confined under a keeper cannot
// read the host's environment through /proc (as root, CAP_SYS_PTRACE
// would let it past Landlock), and as root keeps only the file
// capabilities, in its bounding set too (an exec gives none back).
func TestWrapConfinedDropsCaps(t *testing.T) {
	if sandbox.LandlockABI() == 0 {
		t.Skip("no Landlock in this kernel")
	}
	script := `cat /proc/$HOST/environ >/dev/null 2>&1 && echo "environ read" || echo "environ refused"; grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOST=" + strconv.Itoa(os.Getpid())}
	k, err := keeper.WrapConfined(cmd, sandbox.Profile{Read: []string{"/"}, Exec: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pluginhost.StartProcess(k.Cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Started(); err != nil {
		t.Fatal(err)
	}
	p.CloseStdin()
	b, _ := io.ReadAll(p.Stdout())
	<-p.Exited()
	out := string(b)
	want := []string{"environ refused"}
	if os.Geteuid() == 0 {
		// CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_FSETID
		want = append(want, "CapEff:\t000000000000001b", "CapPrm:\t000000000000001b", "CapBnd:\t000000000000001b", "CapAmb:\t0000000000000000")
	} else {
		t.Log("not root: only the environ row runs (there are no capabilities to drop)")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("want %q in:\n%s", w, out)
		}
	}
}
