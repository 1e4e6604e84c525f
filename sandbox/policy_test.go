package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, json, err string
	}{
		{"workspace-write", `{"mode":"workspace-write","network":"off","writableRoots":["/p"],"readOnly":["/p/.git/hooks"],"denyRead":["/h/.ssh"],"tempDir":"/t","pidsLimit":64}`, ""},
		{"off", `{"mode":"off","network":"on"}`, ""},
		{"unknown mode", `{"mode":"danger","network":"off"}`, `unknown sandbox mode "danger"`},
		{"no mode", `{"network":"off"}`, `unknown sandbox mode ""`},
		{"unknown network", `{"mode":"read-only","network":"some"}`, `unknown network "some"`},
		{"allow-list", `{"mode":"read-only","network":["example.com","*.Example.org.","[::1]:8080"],"proxy":"/t/p.sock"}`, ""},
		{"allow-list as a string", `{"mode":"read-only","network":"example.com"}`, `unknown network "example.com"`},
		{"empty allow-list", `{"mode":"read-only","network":[]}`, "no host"},
		{"bad host", `{"mode":"read-only","network":["exa mple.com"]}`, "not a host name"},
		{"network a number", `{"mode":"read-only","network":1}`, "want \"off\", \"on\" or a list of hosts"},
		{"proxy without a list", `{"mode":"read-only","network":"off","proxy":"/t/p.sock"}`, "without a network allow-list"},
		{"relative proxy", `{"mode":"read-only","network":["a.b"],"proxy":"p.sock"}`, `proxy socket: "p.sock" is not absolute`},
		{"unknown field", `{"mode":"off","network":"on","exec":true}`, `unknown field "exec"`},
		{"relative root", `{"mode":"workspace-write","network":"off","writableRoots":["p"]}`, `writable root: "p" is not absolute`},
		{"unclean root", `{"mode":"workspace-write","network":"off","writableRoots":["/p/../etc"]}`, "is not clean"},
		{"NUL", `{"mode":"workspace-write","network":"off","denyRead":["/a\u0000b"]}`, "holds a NUL"},
		{"relative temp", `{"mode":"read-only","network":"off","tempDir":"tmp"}`, `temp folder: "tmp" is not absolute`},
		{"negative pids", `{"mode":"read-only","network":"off","pidsLimit":-1}`, "pids limit -1 out of range"},
		{"trailing", `{"mode":"off","network":"on"} {}`, "data after the policy"},
		{"not json", `mode=off`, "decode sandbox policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Decode([]byte(tt.json))
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Decode: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("Decode = %+v, %v; want an error with %q", p, err, tt.err)
			case err == nil:
				b, err := p.Encode()
				if err != nil {
					t.Fatal(err)
				}
				again, err := Decode(b)
				if err != nil || !reflect.DeepEqual(again, p) {
					t.Fatalf("round trip: %+v, %v; want %+v", again, err, p)
				}
			}
		})
	}
}

// FuzzDecode: Decode never panics, and what it accepts encodes and
// decodes to itself.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"mode":"workspace-write","network":"off","writableRoots":["/p"],"pidsLimit":64}`))
	f.Add([]byte(`{"mode":"off","network":"on"}`))
	f.Add([]byte(`{"mode":"read-only","network":["a"]}`))
	f.Add([]byte(`{"mode":"workspace-write","network":["a.b","*.c.d:443","[::1]:80"],"proxy":"/t/net.sock"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			return
		}
		enc, err := p.Encode()
		if err != nil {
			t.Fatalf("a decoded policy does not encode: %v", err)
		}
		again, err := Decode(enc)
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("round trip: %+v, %v; want %+v", again, err, p)
		}
	})
}

// repo makes a git folder (HEAD, objects) in dir.
func repo(t *testing.T, dir string) {
	t.Helper()
	for _, d := range []string{".git/objects", ".git/refs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBuild(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project := filepath.Join(root, "project")
	sub := filepath.Join(project, "sub")
	plain := filepath.Join(root, "plain")
	for _, d := range []string{sub, plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	repo(t, project)
	// A linked worktree: its .git file names a folder in the main
	// repository, whose commondir is the main .git.
	wt := filepath.Join(root, "wt")
	wtGit := filepath.Join(project, ".git", "worktrees", "wt")
	if err := os.MkdirAll(wtGit, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+wtGit+"\n"), 0o644)
	_ = os.WriteFile(filepath.Join(wtGit, "commondir"), []byte("../..\n"), 0o644)
	_ = os.WriteFile(filepath.Join(wtGit, "gitdir"), []byte(filepath.Join(wt, ".git")+"\n"), 0o644)
	// A .git file a command wrote, naming the home folder: not taken.
	forged := filepath.Join(root, "forged")
	_ = os.MkdirAll(forged, 0o755)
	_ = os.WriteFile(filepath.Join(forged, ".git"), []byte("gitdir: /home/u\n"), 0o644)
	// One naming a real worktree's folder, which does not name it back.
	stolen := filepath.Join(root, "stolen")
	_ = os.MkdirAll(stolen, 0o755)
	_ = os.WriteFile(filepath.Join(stolen, ".git"), []byte("gitdir: "+wtGit+"\n"), 0o644)
	git := filepath.Join(project, ".git")
	home := "/home/u"
	tests := []struct {
		name         string
		setup        Setup
		roots        []string
		readOnly     []string // held, among others
		denyRead     []string // held, among others
		notWritable  []string
		notHidden    []string
		wantTemp     string
		wantDisabled bool
	}{
		{name: "repository", setup: Setup{Mode: WorkspaceWrite, Cwd: project, TempDir: "/tmp/x", Home: home, RuntimeDir: "/run/user/1000", Harness: []string{"/home/u/.config/harness"}},
			roots:    []string{project},
			readOnly: []string{git + "/hooks", git + "/config", git + "/info", project + "/.vscode", project + "/.mcp.json", "/home/u/.config/harness"},
			denyRead: []string{"/home/u/.ssh", "/home/u/.aws", "/home/u/.gnupg", "/home/u/.config/gh", "/home/u/.netrc", "/home/u/.docker/config.json", "/home/u/.kube",
				"/home/u/.config/harness", "/var/run/docker.sock", "/tmp/.X11-unix", "/run/user/1000"},
			wantTemp: "/tmp/x"},
		{name: "subfolder of a repository", setup: Setup{Mode: WorkspaceWrite, Cwd: sub},
			roots: []string{sub, git}, readOnly: []string{git + "/hooks", git + "/config", sub + "/.vscode"}},
		{name: "linked worktree", setup: Setup{Mode: WorkspaceWrite, Cwd: wt},
			roots: []string{wt, wtGit, git}, readOnly: []string{git + "/hooks", git + "/config", wtGit + "/config", wt + "/.git"}},
		{name: "forged .git file", setup: Setup{Mode: WorkspaceWrite, Cwd: forged}, roots: []string{forged}, notWritable: []string{"/home/u"},
			readOnly: []string{forged + "/.git"}},
		{name: "a worktree's folder named from elsewhere", setup: Setup{Mode: WorkspaceWrite, Cwd: stolen}, roots: []string{stolen}, notWritable: []string{wtGit, git},
			readOnly: []string{stolen + "/.git"}},
		{name: "no repository", setup: Setup{Mode: WorkspaceWrite, Cwd: plain, AddDirs: []string{"/data", "rel"}},
			roots: []string{plain, "/data"}, readOnly: []string{plain + "/.idea", "/data/.zed"}, notWritable: []string{"rel"}},
		{name: "read-only", setup: Setup{Mode: ReadOnly, Cwd: project, TempDir: "/tmp/x", Home: home},
			notWritable: []string{project}, wantTemp: "/tmp/x", denyRead: []string{"/home/u/.ssh"}},
		{name: "cwd in harness's config", setup: Setup{Mode: WorkspaceWrite, Cwd: "/home/u/.config/harness", Home: home, Harness: []string{"/home/u/.config/harness"}},
			roots: []string{"/home/u/.config/harness"}, readOnly: []string{"/home/u/.config/harness"}, denyRead: []string{"/home/u/.ssh"}, notHidden: []string{"/home/u/.config/harness"}},
		{name: "off", setup: Setup{Mode: Off, Cwd: project, Home: home}, wantDisabled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Build(tt.setup)
			if err := p.Validate(); err != nil {
				t.Fatalf("Build made an invalid policy: %v\n%+v", err, p)
			}
			if p.Enabled() == tt.wantDisabled {
				t.Fatalf("Enabled = %v", p.Enabled())
			}
			if tt.wantDisabled {
				if len(p.WritableRoots)+len(p.ReadOnly)+len(p.DenyRead) != 0 {
					t.Fatalf("off holds paths: %+v", p)
				}
				return
			}
			if p.Network != NetworkOff || p.Pids() != DefaultPidsLimit {
				t.Errorf("network %q, pids %d; want off and %d", p.Network, p.Pids(), DefaultPidsLimit)
			}
			if !slices.Equal(p.WritableRoots, tt.roots) {
				t.Errorf("writable roots %q, want %q", p.WritableRoots, tt.roots)
			}
			for _, r := range tt.readOnly {
				if !slices.Contains(p.ReadOnly, r) {
					t.Errorf("read-only %q lacks %s", p.ReadOnly, r)
				}
			}
			for _, d := range tt.denyRead {
				if !slices.Contains(p.DenyRead, d) {
					t.Errorf("deny-read %q lacks %s", p.DenyRead, d)
				}
			}
			for _, n := range tt.notHidden {
				if slices.Contains(p.DenyRead, n) {
					t.Errorf("%s is hidden: %q", n, p.DenyRead)
				}
			}
			for _, n := range tt.notWritable {
				if slices.Contains(p.Writable(), n) {
					t.Errorf("%s is writable: %q", n, p.Writable())
				}
			}
			if p.TempDir != tt.wantTemp || tt.wantTemp != "" && !slices.Contains(p.Writable(), tt.wantTemp) {
				t.Errorf("temp %q (writable %q), want %q", p.TempDir, p.Writable(), tt.wantTemp)
			}
		})
	}
}

func TestEnforceable(t *testing.T) {
	t.Parallel()
	ww := Policy{Mode: WorkspaceWrite, Network: NetworkOff}
	full := Kernel{Root: true, MountNS: true, NetNS: true, LandlockABI: 7, Seccomp: true, PidsCgroup: "/sys/fs/cgroup/pids"}
	bare := Kernel{UserNS: false, LandlockABI: 7, Seccomp: true, Errors: map[string]string{"mount namespace": "operation not permitted"}}
	none := Kernel{Root: true}
	tests := []struct {
		name   string
		k      Kernel
		p      Policy
		held   []string // rows enforced, by a word of What
		unheld []string // rows not enforced
		how    string   // in some row's How
	}{
		{"full", full, ww, []string{"writes outside", "protected paths inside", "credential", "network off", "processes", "escapes"}, nil, "own network namespace"},
		{"placeholders", full, ww, []string{"protected paths inside"}, nil, "the missing ones as empty placeholders while the command runs"},
		{"no namespaces", bare, ww, []string{"writes outside", "network off", "processes", "escapes"}, []string{"protected paths inside", "credential"}, "seccomp refuses socket"},
		{"nothing as root", none, ww, nil, []string{"writes outside", "protected paths inside", "network off", "processes", "escapes"}, "RLIMIT_NPROC does not bind root"},
		{"network on", full, Policy{Mode: ReadOnly, Network: NetworkOn}, []string{"writes outside the temp folder"}, []string{"network"}, "the host's network"},
		{"allow-list", full, Policy{Mode: ReadOnly, Network: "a.example,127.0.0.1"}, []string{"network allow-list"}, nil, "only a.example,127.0.0.1 through harness's HTTP/HTTPS proxy"},
		{"allow-list without namespaces", bare, Policy{Mode: ReadOnly, Network: "a.example"}, nil, []string{"network allow-list"}, "no network at all instead (seccomp refuses"},
		{"off", full, Policy{Mode: Off}, nil, []string{"sandbox"}, "user's rights"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows := tt.k.Enforceable(tt.p)
			find := func(what string) (Row, bool) {
				for _, r := range rows {
					if strings.Contains(r.What, what) {
						return r, true
					}
				}
				return Row{}, false
			}
			for _, w := range tt.held {
				if r, ok := find(w); !ok || !r.Enforced {
					t.Errorf("%q: %+v, want enforced", w, r)
				}
			}
			for _, w := range tt.unheld {
				if r, ok := find(w); !ok || r.Enforced {
					t.Errorf("%q: %+v, want a row not enforced", w, r)
				}
			}
			var all strings.Builder
			for _, r := range rows {
				all.WriteString(r.String() + "\n")
			}
			if !strings.Contains(all.String(), tt.how) {
				t.Errorf("no row says %q:\n%s", tt.how, all.String())
			}
		})
	}
}
