package settings

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

type model struct {
	Name          string   `toml:"name"`
	ContextWindow int      `toml:"context-window"`
	Efforts       []string `toml:"reasoning-efforts"`
}

type values struct {
	Names  string
	Hosts  string
	Model  string
	Steps  int
	Watch  bool
	Wall   time.Duration
	Config string
	Models []model
}

func bind(fs *flag.FlagSet, def string) (*Set, *values) {
	v := &values{}
	s := New(fs)
	s.ConfigFile(&v.Config, "config", "T_CONFIG", def, "config file")
	s.String(&v.Model, "model", "T_MODEL", "m-default", "model")
	s.Int(&v.Steps, "max-steps", "T_STEPS", 100, "steps")
	s.Bool(&v.Watch, "watch", "T_WATCH", true, "watch")
	s.Duration(&v.Wall, "wall", "T_WALL", time.Minute, "wall")
	s.String(&v.Names, "models", "T_MODELS", "", "model names")
	s.Table("models", &v.Models)
	s.StringList(&v.Hosts, "hosts", "T_HOSTS", "", ",", "hosts")
	return s, v
}

// TestPrecedence: flag > environment > config file > default, and a bad
// value from each source is one error naming that source.
func TestPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		file    string // "" = no file at the default path
		want    values
		source  map[string]string // setting → where it came from
		wantErr string            // substring; "" = no error
	}{
		{name: "defaults", want: values{Model: "m-default", Steps: 100, Watch: true, Wall: time.Minute},
			source: map[string]string{"model": "default", "max-steps": "default"}},
		{name: "file", file: "model = \"m-file\"\nmax-steps = 7\nwatch = false\nwall = \"2m\"\n",
			want:   values{Model: "m-file", Steps: 7, Watch: false, Wall: 2 * time.Minute},
			source: map[string]string{"model": "config file FILE: model", "max-steps": "config file FILE: max-steps"}},
		{name: "file number as text", file: "max-steps = \"9\"\n",
			want: values{Model: "m-default", Steps: 9, Watch: true, Wall: time.Minute}},
		{name: "env over file", file: "model = \"m-file\"\nmax-steps = 7\n", env: map[string]string{"T_MODEL": "m-env", "T_STEPS": "8"},
			want:   values{Model: "m-env", Steps: 8, Watch: true, Wall: time.Minute},
			source: map[string]string{"model": "T_MODEL", "max-steps": "T_STEPS"}},
		{name: "empty env is unset", file: "model = \"m-file\"\n", env: map[string]string{"T_MODEL": ""},
			want: values{Model: "m-file", Steps: 100, Watch: true, Wall: time.Minute}},
		{name: "flag over env and file", args: []string{"--model", "m-flag", "--max-steps=3", "--watch=false"},
			file: "model = \"m-file\"\n", env: map[string]string{"T_MODEL": "m-env", "T_STEPS": "8", "T_WATCH": "true"},
			want:   values{Model: "m-flag", Steps: 3, Watch: false, Wall: time.Minute},
			source: map[string]string{"model": "--model", "max-steps": "--max-steps", "watch": "--watch"}},
		{name: "table", file: "[[models]]\nname = \"a\"\ncontext-window = 64000\nreasoning-efforts = [\"low\", \"high\"]\n[[models]]\nname = \"b\"\n",
			want: values{Model: "m-default", Steps: 100, Watch: true, Wall: time.Minute,
				Models: []model{{Name: "a", ContextWindow: 64000, Efforts: []string{"low", "high"}}, {Name: "b"}}}},

		{name: "same name as a setting", file: "models = \"a,b\"\n",
			want: values{Names: "a,b", Model: "m-default", Steps: 100, Watch: true, Wall: time.Minute}},
		{name: "list from an array", file: "hosts = [\"a.com\", \"*.b.org\"]\n",
			want: values{Hosts: "a.com,*.b.org", Model: "m-default", Steps: 100, Watch: true, Wall: time.Minute}},
		{name: "list from text", file: "hosts = \"a.com,b.org\"\n",
			want: values{Hosts: "a.com,b.org", Model: "m-default", Steps: 100, Watch: true, Wall: time.Minute}},
		{name: "list env over file", file: "hosts = [\"a.com\"]\n", env: map[string]string{"T_HOSTS": "c.net,d.net"},
			want: values{Hosts: "c.net,d.net", Model: "m-default", Steps: 100, Watch: true, Wall: time.Minute}, source: map[string]string{"hosts": "T_HOSTS"}},
		{name: "list empty array", file: "hosts = []\n", wantErr: `config file FILE: hosts: an empty array`},
		{name: "list element with the separator", file: "hosts = [\"a,b\"]\n", wantErr: `hosts: element 1 holds ","`},
		{name: "list element not text", file: "hosts = [\"a\", 5]\n", wantErr: `hosts: element 2 is a int64, want text`},
		{name: "bad flag", args: []string{"--max-steps", "many"}, wantErr: `invalid value "many" for flag -max-steps`},
		{name: "bad env", env: map[string]string{"T_STEPS": "many"}, wantErr: `T_STEPS: "many" is not a whole number`},
		{name: "bad env bool", env: map[string]string{"T_WATCH": "yes please"}, wantErr: `T_WATCH: "yes please" is not true or false`},
		{name: "bad env duration", env: map[string]string{"T_WALL": "10"}, wantErr: `T_WALL: "10" is not a duration`},
		{name: "bad file", file: "max-steps = 1.5\n", wantErr: `config file FILE: max-steps: "1.5" is not a whole number`},
		{name: "bad file array", file: "model = [\"a\"]\n", wantErr: `config file FILE: model: want a single value`},
		{name: "bad file table type", file: "[[models]]\nname = \"a\"\ncontext-window = \"big\"\n", wantErr: `config file FILE: models:`},
		{name: "unknown key", file: "modle = \"x\"\n", wantErr: `config file FILE: unknown key "modle" (a typo?); known keys: [[models]], hosts, max-steps, model, models, wall, watch`},
		{name: "unknown key in table", file: "[[models]]\nname = \"a\"\ncontext-windw = 5\n", wantErr: `unknown key "models.context-windw"`},
		{name: "config key is not a file key", file: "config = \"/x\"\n", wantErr: `unknown key "config"`},
		{name: "syntax error hides the text", file: "model = sk-secret-123\n", wantErr: `config file FILE: line 1`},
		{name: "bad env beats a good file", file: "max-steps = 5\n", env: map[string]string{"T_STEPS": "x"}, wantErr: "T_STEPS:"},
		{name: "flag hides a bad env", args: []string{"--max-steps=4"}, env: map[string]string{"T_STEPS": "x"},
			want: values{Model: "m-default", Steps: 4, Watch: true, Wall: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "config.toml")
			if tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			s, v := bind(fs, path)
			err := fs.Parse(tt.args)
			if err == nil {
				err = s.Resolve(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			}
			wantErr := strings.ReplaceAll(tt.wantErr, "FILE", path)
			if wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), wantErr) {
					t.Fatalf("error %v, want one containing %q", err, wantErr)
				}
				if strings.Contains(err.Error(), "sk-secret") {
					t.Fatalf("the error echoes the file's text: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Config = path
			if v.Names != tt.want.Names || v.Hosts != tt.want.Hosts || v.Model != tt.want.Model || v.Steps != tt.want.Steps || v.Watch != tt.want.Watch || v.Wall != tt.want.Wall ||
				v.Config != tt.want.Config || len(v.Models) != len(tt.want.Models) {
				t.Fatalf("got %+v, want %+v", *v, tt.want)
			}
			for i := range v.Models {
				if v.Models[i].Name != tt.want.Models[i].Name || v.Models[i].ContextWindow != tt.want.Models[i].ContextWindow ||
					strings.Join(v.Models[i].Efforts, ",") != strings.Join(tt.want.Models[i].Efforts, ",") {
					t.Fatalf("models %+v, want %+v", v.Models, tt.want.Models)
				}
			}
			for name, want := range tt.source {
				if got := s.Source(name); got != strings.ReplaceAll(want, "FILE", path) {
					t.Errorf("Source(%s) = %q, want %q", name, got, want)
				}
			}
		})
	}
}

// TestConfigFile: the default file may be missing; one named by the flag
// or the variable must exist; the variable names it, the flag wins.
func TestConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.toml"), filepath.Join(dir, "b.toml")
	os.WriteFile(a, []byte("model = \"from-a\"\n"), 0o600)
	os.WriteFile(b, []byte("model = \"from-b\"\n"), 0o600)
	missing := filepath.Join(dir, "missing.toml")
	shared := filepath.Join(dir, "shared.toml") // another user could write it
	os.WriteFile(shared, []byte("model = \"sk-from-shared\"\n"), 0o600)
	os.Chmod(shared, 0o664)
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		def     string
		want    string
		wantErr string
	}{
		{name: "default missing", def: missing, want: "m-default"},
		{name: "default", def: a, want: "from-a"},
		{name: "env", def: a, env: map[string]string{"T_CONFIG": b}, want: "from-b"},
		{name: "flag over env", args: []string{"--config", a}, env: map[string]string{"T_CONFIG": b}, def: missing, want: "from-a"},
		{name: "env missing", env: map[string]string{"T_CONFIG": missing}, wantErr: "read config file"},
		{name: "flag missing", args: []string{"--config=" + missing}, wantErr: "read config file"},
		{name: "default group-writable", def: shared, wantErr: "config file " + shared + " is writable by group or others (mode 0664"},
		{name: "flag group-writable", args: []string{"--config", shared}, def: a, wantErr: "; refused: chmod go-w " + shared},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			s, v := bind(fs, tt.def)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := s.Resolve(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "sk-from-shared") {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || v.Model != tt.want {
				t.Fatalf("model %q (%v), want %q", v.Model, err, tt.want)
			}
		})
	}
}

// FuzzResolve: whatever the file holds, Resolve returns or fails with an
// error naming the file, and never quotes the file's text on a syntax
// error.
func FuzzResolve(f *testing.F) {
	f.Add("model = \"x\"\nmax-steps = 3\n[[models]]\nname = \"a\"\n")
	f.Add("max-steps = 1.5")
	f.Add("[[models]]\nname = 5")
	f.Add("model = sk-SECRET")
	f.Fuzz(func(t *testing.T, file string) {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		s, _ := bind(fs, path)
		err := s.Resolve(nil)
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("the error does not name the file: %v", err)
		}
		if strings.Contains(file, "sk-SECRET") && strings.Contains(err.Error(), "sk-SECRET") && strings.Contains(err.Error(), "TOML") {
			t.Fatalf("a syntax error quotes the file: %v", err)
		}
	})
}

// TestList: a list setting takes each flag, the variable split at colons,
// the file's array or one string, by the same precedence, and an item
// its check refuses is an error naming the source.
func TestList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		env     string
		file    string
		want    []string
		source  string
		wantErr string
	}{
		{name: "default", want: nil, source: "default"},
		{name: "flags", args: []string{"--dir", "/a", "--dir=/b"}, env: "/e", file: "dirs = [\"/f\"]\n", want: []string{"/a", "/b"}, source: "--dir"},
		{name: "env", env: "/a::/b:", file: "dirs = [\"/f\"]\n", want: []string{"/a", "/b"}, source: "T_DIRS"},
		{name: "file array", file: "dirs = [\"/a\", \"/b\"]\n", want: []string{"/a", "/b"}, source: "config file FILE: dirs"},
		{name: "file string", file: "dirs = \"/a\"\n", want: []string{"/a"}, source: "config file FILE: dirs"},
		{name: "file empty array", file: "dirs = []\n", want: nil, source: "config file FILE: dirs"},
		{name: "bad flag item", args: []string{"--dir", "rel"}, wantErr: `invalid value "rel" for flag -dir: not absolute`},
		{name: "bad env item", env: "/a:rel", wantErr: `T_DIRS: not absolute`},
		{name: "bad file item", file: "dirs = [\"/a\", \"rel\"]\n", wantErr: `config file FILE: dirs: not absolute`},
		{name: "file number item", file: "dirs = [\"/a\", 3]\n", wantErr: `config file FILE: dirs: item 2: want a string`},
		{name: "file number", file: "dirs = 3\n", wantErr: `config file FILE: dirs: want a list of strings`},
		{name: "the flag's name is no file key", file: "dir = [\"/a\"]\n", wantErr: `unknown key "dir" (a typo?); known keys: dirs`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "config.toml")
			if tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var cfg string
			var dirs []string
			s := New(fs)
			s.ConfigFile(&cfg, "config", "", path, "config file")
			s.List(&dirs, "dir", "dirs", "T_DIRS", "folders", func(v string) error {
				if !filepath.IsAbs(v) {
					return errors.New("not absolute")
				}
				return nil
			})
			err := fs.Parse(tt.args)
			if err == nil {
				err = s.Resolve(func(k string) (string, bool) {
					if k == "T_DIRS" && tt.env != "" {
						return tt.env, true
					}
					return "", false
				})
			}
			if tt.wantErr != "" {
				if want := strings.ReplaceAll(tt.wantErr, "FILE", path); err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error %v, want one containing %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dirs, tt.want) {
				t.Errorf("dirs = %q, want %q", dirs, tt.want)
			}
			if got, want := s.Source("dir"), strings.ReplaceAll(tt.source, "FILE", path); got != want {
				t.Errorf("Source = %q, want %q", got, want)
			}
		})
	}
}
