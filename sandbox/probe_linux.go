package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Probe finds what this kernel offers: it starts `true` in new
// namespaces (a user namespace too unless root), asks Landlock for its
// ABI, checks seccomp, and looks for a pids cgroup it can make children
// in. It takes a few milliseconds.
func Probe() Kernel {
	k := Kernel{Root: os.Getuid() == 0, Errors: map[string]string{}}
	truePath, err := exec.LookPath("true")
	if err != nil {
		truePath = "/bin/true"
	}
	try := func(flags uintptr) error {
		attr := &syscall.SysProcAttr{Cloneflags: flags}
		if !k.Root {
			// No uid or gid map: Go would write it into /proc/<child>,
			// which a non-root user cannot open when this process is
			// not dumpable (harness hides itself so), and the probe
			// would report no user namespace where the bash plugin,
			// which handles that, gets one. Making the namespaces is
			// what is probed; `true` runs unmapped.
			attr.Cloneflags |= syscall.CLONE_NEWUSER
		}
		cmd := exec.Command(truePath)
		cmd.SysProcAttr = attr
		return cmd.Run()
	}
	if !k.Root {
		if err := try(0); err != nil {
			k.Errors["user namespace"] = err.Error()
		} else {
			k.UserNS = true
		}
	}
	if err := try(syscall.CLONE_NEWNS | syscall.CLONE_NEWPID); err != nil {
		k.Errors["mount namespace"] = err.Error()
	} else {
		k.MountNS = true
	}
	if err := try(syscall.CLONE_NEWNET); err != nil {
		k.Errors["network namespace"] = err.Error()
	} else {
		k.NetNS = true
	}
	if abi, err := ll.LandlockGetABIVersion(); err == nil && abi > 0 {
		k.LandlockABI = abi
	} else if err != nil {
		k.Errors["landlock"] = err.Error()
	}
	k.Seccomp = seccompSupported()
	if dir, err := PidsCgroupParent(); err == nil {
		k.PidsCgroup = dir
	} else {
		k.Errors["pids cgroup"] = err.Error()
	}
	return k
}

// PidsCgroupParent finds the folder a command's pids cgroup is made in:
// the process's own cgroup in cgroup v2 when it holds the pids controller
// for its children and is writable, else its cgroup in the v1 pids
// hierarchy when writable. It checks by making and removing a child.
func PidsCgroupParent() (string, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return "", err
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("find the pids cgroup: %w", err)
	}
	var tried []string
	for _, line := range strings.Split(strings.TrimSpace(string(own)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var mnt string
		switch {
		case parts[0] == "0" && parts[1] == "":
			mnt = mounts["cgroup2"]
		case hasField(parts[1], "pids"):
			mnt = mounts["pids"]
		}
		if mnt == "" {
			continue
		}
		dir := filepath.Join(mnt, filepath.Clean("/"+parts[2]))
		if err := tryChild(dir); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		return dir, nil
	}
	if len(tried) == 0 {
		return "", errors.New("no pids controller mounted")
	}
	return "", errors.New(strings.Join(tried, "; "))
}

// hasField reports whether the comma-separated list holds f.
func hasField(list, f string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == f {
			return true
		}
	}
	return false
}

// cgroupMounts finds the cgroup2 mount ("cgroup2") and the v1 pids
// hierarchy's ("pids") in /proc/self/mountinfo.
func cgroupMounts() (map[string]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("find the cgroup mounts: %w", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 {
			continue
		}
		switch {
		case qf[0] == "cgroup2" && out["cgroup2"] == "":
			out["cgroup2"] = unescapeMount(pf[4])
		case qf[0] == "cgroup" && hasField(qf[2], "pids") && out["pids"] == "":
			out["pids"] = unescapeMount(pf[4])
		}
	}
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// tryChild makes and removes a child cgroup of dir, which must then
// have pids.max.
func tryChild(dir string) error {
	probe := filepath.Join(dir, "harness-probe-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return fmt.Errorf("make a cgroup in %s: %w", dir, err)
	}
	defer os.Remove(probe)
	if _, err := os.Stat(filepath.Join(probe, "pids.max")); err != nil {
		return fmt.Errorf("%s: no pids controller for its children", dir)
	}
	return nil
}

// PidsCgroup is one command's pids cgroup.
type PidsCgroup struct{ dir string }

// NewPidsCgroup makes the cgroup name under parent (PidsCgroupParent),
// without a limit until SetLimit.
func NewPidsCgroup(parent, name string) (*PidsCgroup, error) {
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make pids cgroup: %w", err)
	}
	return &PidsCgroup{dir: dir}, nil
}

// SetLimit sets pids.max: forks past limit processes (threads count) in
// the cgroup fail with EAGAIN.
func (c *PidsCgroup) SetLimit(limit int) error {
	if err := os.WriteFile(filepath.Join(c.dir, "pids.max"), []byte(strconv.Itoa(limit)), 0); err != nil {
		return fmt.Errorf("set pids.max: %w", err)
	}
	return nil
}

// Add moves process pid (all its threads) into the cgroup; its children
// are born there.
func (c *PidsCgroup) Add(pid int) error {
	if err := os.WriteFile(filepath.Join(c.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("join pids cgroup: %w", err)
	}
	return nil
}

// Remove removes the cgroup; it fails (EBUSY) while a process is in it.
func (c *PidsCgroup) Remove() error {
	if err := unix.Rmdir(c.dir); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("remove pids cgroup: %w", err)
	}
	return nil
}
