package settings

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/harness-dev/harness/host/ownership"
)

// Lookup looks up an environment variable (os.LookupEnv, or a map in tests).
type Lookup func(string) (string, bool)

// Set is the settings of one command, bound to its flag set. Declare every
// setting, parse the flag set, then call Resolve once.
type Set struct {
	fs     *flag.FlagSet
	list   []*setting
	byName map[string]*setting
	tables map[string]any
	config *setting // the config file's own setting, if declared
	file   string   // the file read by Resolve, "" if none
}

// setting is one declared setting.
type setting struct {
	name, env string
	key       string             // its key in the file: name, unless List says otherwise
	set       func(string) error // parses text into the target
	source    string             // where the value came from
	fromFlag  bool
	boolFlag  bool
	text      string // the default as text, for -h
	join      string // StringList's separator: the file may hold an array
	// list: a List setting. Each flag appends; the variable's value is
	// split at colons; the file's is an array of strings. reset empties
	// the list before the first value from a source.
	list  bool
	reset func()
}

// New returns an empty Set whose flags go to fs.
func New(fs *flag.FlagSet) *Set {
	return &Set{fs: fs, byName: map[string]*setting{}, tables: map[string]any{}}
}

// flagValue is the flag.Value of a setting: it marks the setting as given
// on the command line.
type flagValue struct{ s *setting }

func (v flagValue) String() string {
	if v.s == nil {
		return ""
	}
	return v.s.text
}

func (v flagValue) Set(text string) error {
	if v.s.list && !v.s.fromFlag {
		v.s.reset() // the first flag replaces the default
	}
	if err := v.s.set(text); err != nil {
		return err
	}
	v.s.fromFlag, v.s.source, v.s.text = true, "--"+v.s.name, text
	return nil
}

func (v flagValue) IsBoolFlag() bool { return v.s != nil && v.s.boolFlag }

func (s *Set) add(name, env, def, usage string, boolFlag bool, set func(string) error) *setting {
	if _, dup := s.byName[name]; dup {
		panic("settings: " + name + " declared twice") // a programming error
	}
	st := &setting{name: name, key: name, env: env, set: set, source: "default", boolFlag: boolFlag, text: def}
	s.list = append(s.list, st)
	s.byName[name] = st
	if env != "" {
		usage += " (env " + env + ")"
	}
	s.fs.Var(flagValue{st}, name, usage)
	return st
}

// String declares a text setting: flag --name, variable env ("" for
// none), key name in the config file.
func (s *Set) String(p *string, name, env, def, usage string) {
	*p = def
	s.add(name, env, def, usage, false, func(v string) error { *p = v; return nil })
}

// StringList declares a text setting whose value in the config file may
// also be an array of strings, which reaches the setting joined by sep
// (`sandbox-network = ["a.com", "b.org"]` is "a.com,b.org" with sep ","),
// so that one parser reads every source; flags and variables spell it
// joined. An empty array, or an element that holds sep, is an error.
func (s *Set) StringList(p *string, name, env, def, sep, usage string) {
	s.String(p, name, env, def, usage)
	s.byName[name].join = sep
}

// joined is a TOML array of strings joined by sep.
func joined(v any, sep string) (string, error) {
	list, ok := v.([]any)
	if !ok {
		return "", fmt.Errorf("want text or an array of text, not a %T", v)
	}
	if len(list) == 0 {
		return "", errors.New("an empty array")
	}
	parts := make([]string, 0, len(list))
	for i, e := range list {
		t, ok := e.(string)
		switch {
		case !ok:
			return "", fmt.Errorf("element %d is a %T, want text", i+1, e)
		case strings.Contains(t, sep):
			return "", fmt.Errorf("element %d holds %q, which separates elements", i+1, sep)
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, sep), nil
}

// Int declares a whole-number setting.
func (s *Set) Int(p *int, name, env string, def int, usage string) {
	*p = def
	s.add(name, env, strconv.Itoa(def), usage, false, func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%q is not a whole number", v)
		}
		*p = n
		return nil
	})
}

// Bool declares an on/off setting (true, false, 1, 0).
func (s *Set) Bool(p *bool, name, env string, def bool, usage string) {
	*p = def
	s.add(name, env, strconv.FormatBool(def), usage, true, func(v string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		*p = b
		return nil
	})
}

// Duration declares a duration setting ("90s", "10m").
func (s *Set) Duration(p *time.Duration, name, env string, def time.Duration, usage string) {
	*p = def
	s.add(name, env, def.String(), usage, false, func(v string) error {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%q is not a duration such as 90s or 10m", v)
		}
		*p = d
		return nil
	})
}

// List declares a setting holding a list of texts: the flag may be
// given many times (each adds one), the variable holds the items
// separated by colons (empty items are skipped), the file's key an array
// of strings (or one string) under key (a plural, add-dirs for --add-dir;
// "" for name). Each item is checked by check (nil: any), whose error is
// named with the item's source. The default is empty. Source names the
// setting by name.
func (s *Set) List(p *[]string, name, key, env, usage string, check func(string) error) {
	*p = nil
	st := s.add(name, env, "", usage, false, func(v string) error {
		if check != nil {
			if err := check(v); err != nil {
				return err
			}
		}
		*p = append(*p, v)
		return nil
	})
	st.list, st.reset = true, func() { *p = nil }
	if key != "" {
		st.key = key
	}
}

// ConfigFile declares the setting naming the config file (flag and
// variable only): def is the default path, "" for none.
func (s *Set) ConfigFile(p *string, name, env, def, usage string) {
	s.String(p, name, env, def, usage)
	s.config = s.byName[name]
	s.config.text = def
}

// Table declares a file-only key holding a table or an array of tables
// (`[[models]]`), decoded into p (a pointer) by Resolve. Keys inside it
// that p has no field for are errors too. A setting may have the same
// name: the file's value goes to the table when it is one, to the
// setting when it is a single value.
func (s *Set) Table(key string, p any) { s.tables[key] = p }

// Source says where the value of setting name came from: "--name",
// the variable's name, "config file PATH: name", or "default".
func (s *Set) Source(name string) string {
	if st, ok := s.byName[name]; ok {
		return st.source
	}
	return "default"
}

// Rank orders where setting name's value came from, strongest first: 3
// a flag, 2 the environment, 1 the config file, 0 the default. A front end
// folding a deprecated alias into its setting keeps the stronger one.
func (s *Set) Rank(name string) int {
	st, ok := s.byName[name]
	switch {
	case !ok || st.source == "default":
		return 0
	case st.fromFlag:
		return 3
	case st.source == st.env:
		return 2
	}
	return 1
}

// File is the config file Resolve read, "" if none.
func (s *Set) File() string { return s.file }

// Resolve gives every setting not set by a flag its value from the
// environment, else the config file, else its default, after the flag set
// was parsed. The first bad value is the error, naming its source.
func (s *Set) Resolve(env Lookup) error {
	get := func(name string) string {
		if env == nil || name == "" {
			return ""
		}
		v, _ := env(name)
		return v
	}
	// The file's own setting first: flag, else variable, else default.
	var keys map[string]toml.Primitive
	var md toml.MetaData
	if s.config != nil {
		c := s.config
		path, explicit := c.text, c.fromFlag // text: the flag's value, else the default
		if v := get(c.env); !c.fromFlag && v != "" {
			_ = c.set(v) // a text setting: never fails
			path, explicit, c.source = v, true, c.env
		}
		var err error
		keys, md, err = readFile(path, explicit)
		if err != nil {
			return err
		}
		if keys != nil {
			s.file = path
		}
	}
	for _, st := range s.list {
		if st.fromFlag || st == s.config {
			continue
		}
		if v := get(st.env); v != "" {
			items := []string{v}
			if st.list {
				st.reset()
				items = strings.FieldsFunc(v, func(r rune) bool { return r == ':' })
			}
			for _, item := range items {
				if err := st.set(item); err != nil {
					return fmt.Errorf("%s: %w", st.env, err)
				}
			}
			st.source = st.env
			continue
		}
		prim, ok := keys[st.key]
		if !ok {
			continue
		}
		where := fmt.Sprintf("config file %s: %s", s.file, st.key)
		var raw any
		if err := md.PrimitiveDecode(prim, &raw); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if _, table := s.tables[st.name]; table && isTable(raw) {
			continue // the table of the same name: decoded below
		}
		if st.list {
			items, err := texts(raw)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			st.reset()
			for _, item := range items {
				if err := st.set(item); err != nil {
					return fmt.Errorf("%s: %w", where, err)
				}
			}
			st.source = where
			continue
		}
		text, err := scalar(raw)
		if _, isList := raw.([]any); isList && st.join != "" {
			text, err = joined(raw, st.join)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := st.set(text); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		st.source = where
	}
	for key, p := range s.tables {
		prim, ok := keys[key]
		if !ok {
			continue
		}
		if _, setting := s.byName[key]; setting {
			var raw any
			if err := md.PrimitiveDecode(prim, &raw); err != nil || !isTable(raw) {
				continue // the setting of the same name took it
			}
		}
		if err := md.PrimitiveDecode(prim, p); err != nil {
			return fmt.Errorf("config file %s: %s: %w", s.file, key, err)
		}
	}
	if keys != nil {
		if err := s.unknown(keys, md); err != nil {
			return err
		}
	}
	return nil
}

// unknown reports the first key of the file nobody declared or decoded.
func (s *Set) unknown(keys map[string]toml.Primitive, md toml.MetaData) error {
	var bad []string
	for k := range keys {
		if st := s.byKey(k); st == nil || st == s.config {
			if _, table := s.tables[k]; !table {
				bad = append(bad, k)
			}
		}
	}
	for _, k := range md.Undecoded() {
		if len(k) > 1 { // inside a table; top-level ones are counted above
			bad = append(bad, k.String())
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	known := make([]string, 0, len(s.list)+len(s.tables))
	for _, st := range s.list {
		if st != s.config {
			known = append(known, st.key)
		}
	}
	for k := range s.tables {
		known = append(known, "[["+k+"]]")
	}
	slices.Sort(known)
	return fmt.Errorf("config file %s: unknown key %q (a typo?); known keys: %s", s.file, bad[0], strings.Join(known, ", "))
}

// byKey is the setting whose file key is k, nil if none.
func (s *Set) byKey(k string) *setting {
	for _, st := range s.list {
		if st.key == k {
			return st
		}
	}
	return nil
}

// readFile parses the config file at path; a missing file is no error
// unless it was named explicitly (nil keys then). A file another user
// could have written is refused (package ownership).
func readFile(path string, explicit bool) (map[string]toml.Primitive, toml.MetaData, error) {
	if path == "" {
		return nil, toml.MetaData{}, nil
	}
	b, err := ownership.ReadFile("config file", path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, toml.MetaData{}, nil
	}
	if errors.Is(err, ownership.ErrUntrusted) {
		return nil, toml.MetaData{}, err // one line naming file, owner, mode and fix
	}
	if err != nil {
		return nil, toml.MetaData{}, fmt.Errorf("read config file: %w", err)
	}
	keys := map[string]toml.Primitive{}
	md, err := toml.Decode(string(b), &keys)
	if err != nil {
		// Only the position and the key: the parser's message quotes the
		// text, which may be a secret pasted in the wrong place.
		var pe toml.ParseError
		if errors.As(err, &pe) {
			where := fmt.Sprintf("line %d", pe.Position.Line)
			if pe.LastKey != "" {
				where += fmt.Sprintf(" (after key %q)", pe.LastKey)
			}
			return nil, md, fmt.Errorf("config file %s: %s: not valid TOML; see https://toml.io", path, where)
		}
		return nil, md, fmt.Errorf("config file %s: not valid TOML", path)
	}
	return keys, md, nil
}

// isTable reports whether a decoded TOML value is a table or an array of
// tables.
func isTable(v any) bool {
	switch v.(type) {
	case map[string]any, []map[string]any:
		return true
	}
	return false
}

// texts reads a list setting's TOML value: an array of strings, or one
// string.
func texts(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for i, item := range v {
			text, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("item %d: want a string, not a %T", i+1, item)
			}
			out = append(out, text)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list of strings such as [\"~/src/lib\"], not a %T", v)
}

// scalar renders a single TOML value as the text the setting parses.
func scalar(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case bool:
		return strconv.FormatBool(v), nil
	}
	return "", fmt.Errorf("want a single value (text, number or true/false), not a %T", v)
}
