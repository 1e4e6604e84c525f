package sandbox

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Profile is the confinement of a plugin's process (or any long-lived
// helper the host starts): what it may read, write, execute and reach.
// Unlike a Policy, reads are an allow-list too. Every path is absolute
// and clean. The zero Profile (plus Program) is the default a plugin gets:
// the system folders readable, nothing writable, no network, no exec but
// Program.
type Profile struct {
	// Program is the binary the profile is for: executable (with its ELF
	// interpreter or #! interpreter) even without Exec.
	Program string `json:"program"`
	// Read are trees it may read (files and folders).
	Read []string `json:"read,omitempty"`
	// Write are trees it may write and read.
	Write []string `json:"write,omitempty"`
	// Exec: it may execute what it may read; otherwise only Program.
	Exec bool `json:"exec,omitempty"`
	// Network: the host's network; otherwise AF_INET, AF_INET6 and
	// AF_PACKET sockets are refused (seccomp).
	Network bool `json:"network,omitempty"`
	// PidsLimit caps its processes (RLIMIT_NPROC, for a user other than
	// root); 0 is DefaultPidsLimit.
	PidsLimit int `json:"pidsLimit,omitempty"`
	// Hide are paths hidden in a mount namespace of the process's own
	// where one can be had (PluginHidden's DenyRead): the Unix sockets
	// and credential stores Landlock cannot keep it from.
	Hide []string `json:"hide,omitempty"`
	// ReadOnly are paths inside Write bound read-only over themselves in
	// that same mount namespace, where they exist (Policy.ReadOnly: the
	// protected entries of a writable folder, .git/hooks and the like);
	// without the namespace they stay writable.
	ReadOnly []string `json:"readOnly,omitempty"`
}

// SystemReads are the folders every profile may read: the system's
// programs, libraries and configuration, and the kernel's views.
var SystemReads = []string{"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt", "/proc", "/sys", "/dev"}

// Validate checks p: a Program, absolute clean paths without NUL, a
// pids limit in range.
func (p Profile) Validate() error {
	if err := checkPath(p.Program); err != nil {
		return fmt.Errorf("program: %w", err)
	}
	if p.PidsLimit < 0 || p.PidsLimit > maxPidsLimit {
		return fmt.Errorf("pids limit %d out of range (0 to %d)", p.PidsLimit, maxPidsLimit)
	}
	for _, l := range []struct {
		name  string
		paths []string
	}{{"read path", p.Read}, {"write path", p.Write}, {"hidden path", p.Hide}, {"read-only path", p.ReadOnly}} {
		if len(l.paths) > maxPaths {
			return fmt.Errorf("%d %ss, at most %d", len(l.paths), l.name, maxPaths)
		}
		for _, path := range l.paths {
			if err := checkPath(path); err != nil {
				return fmt.Errorf("%s: %w", l.name, err)
			}
		}
	}
	return nil
}

// DecodeProfile reads a profile from JSON and validates it: unknown
// fields, trailing data and bad paths are refused.
func DecodeProfile(b []byte) (Profile, error) {
	return decodeStrict[Profile](b, "plugin profile", "profile")
}

// HomeReads lists what of the home folder home a profile may read when
// it asks for the home folder: every entry of home but the credential
// stores (DenyRead's defaults), the escape sockets, and the paths of
// exclude (harness's own config and state); a folder holding one of them
// is listed entry by entry, one level down at a time. Landlock grants by
// existing file, so an entry made after the listing is not readable. An
// unreadable home gives nothing.
func HomeReads(home string, exclude []string) []string {
	if home == "" || !filepath.IsAbs(home) {
		return nil
	}
	home = filepath.Clean(home)
	var deny []string
	for _, c := range credentialStores {
		deny = append(deny, filepath.Join(home, c))
	}
	deny = append(deny, filepath.Join(home, ".docker/run"))
	for _, e := range exclude {
		if filepath.IsAbs(e) {
			deny = append(deny, filepath.Clean(e))
		}
	}
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil || depth > 8 {
			return
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			switch {
			case slices.Contains(deny, path):
			case slices.ContainsFunc(deny, func(d string) bool { return strings.HasPrefix(d, path+"/") }) && e.IsDir():
				walk(path, depth+1)
			default:
				out = append(out, path)
			}
		}
	}
	if !slices.ContainsFunc(deny, func(d string) bool { return within(home, []string{d}) }) {
		walk(home, 0)
	}
	return out
}

// interpreters are the programs the kernel runs to start program: the
// ELF interpreter its PT_INTERP names, or the one its #! line names (and
// that one's own). At most a few levels; missing ones are dropped.
func interpreters(program string) []string {
	var out []string
	add := func(p string) bool {
		if p == "" || slices.Contains(out, p) {
			return false
		}
		out = append(out, p)
		return true
	}
	for range 4 {
		next := interpreterOf(program)
		if !add(next) {
			return out
		}
		// #!/usr/bin/env node: env runs node, found on PATH.
		if filepath.Base(next) == "env" {
			if name := envTarget(program); name != "" {
				if found := lookPath(name); found != "" {
					add(filepath.Clean(found))
					for _, i := range interpreters(found) {
						add(i)
					}
				}
			}
		}
		program = next
	}
	return out
}

// envTarget is the program a `#!/usr/bin/env [-S] NAME …` line of
// program names; "".
func envTarget(program string) string {
	f, err := os.Open(program)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.ReadAt(head, 0)
	line, ok := bytes.CutPrefix(head[:n], []byte("#!"))
	if !ok {
		return ""
	}
	line, _, _ = bytes.Cut(line, []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) < 2 {
		return ""
	}
	for _, f := range fields[1:] {
		if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
			return f
		}
	}
	return ""
}

// interpreterOf is program's ELF interpreter or #! interpreter; "".
func interpreterOf(program string) string {
	f, err := os.Open(program)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	if line, ok := bytes.CutPrefix(head, []byte("#!")); ok {
		line, _, _ = bytes.Cut(line, []byte("\n"))
		fields := strings.Fields(string(line))
		if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
			return ""
		}
		return filepath.Clean(fields[0])
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return ""
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, min(p.Filesz, 4096))
		if _, err := p.ReadAt(b, 0); err != nil {
			return ""
		}
		interp := string(bytes.TrimRight(b, "\x00"))
		if filepath.IsAbs(interp) {
			return filepath.Clean(interp)
		}
	}
	return ""
}

// lookPath finds name as env(1) would: in $PATH, else in the C
// library's default path (/bin:/usr/bin) when PATH is unset; "" when
// nowhere.
func lookPath(name string) string {
	if strings.Contains(name, "/") {
		return ""
	}
	path, ok := os.LookupEnv("PATH")
	if !ok || path == "" {
		path = "/bin:/usr/bin"
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// PluginHidden is what a plugin's mount namespace hides, where it gets
// one: the credential stores of home, the sockets of daemons that run
// what they are asked outside any sandbox (docker, podman, containerd,
// X), runtimeDir ($XDG_RUNTIME_DIR: systemd, D-Bus) and the paths of
// own (harness's config and state). Landlock before ABI 9 does not refuse
// connecting to a Unix socket by its path: only hiding it does.
func PluginHidden(home, runtimeDir string, own []string) Policy {
	s := Setup{Mode: ReadOnly, Network: NetworkOff, Home: home, RuntimeDir: runtimeDir, DenyRead: own}
	p := Build(s)
	p.ReadOnly = nil
	return p
}
