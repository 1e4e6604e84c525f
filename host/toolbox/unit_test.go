package toolbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/pluginapi"
)

func TestValidateDescription(t *testing.T) {
	t.Parallel()
	obj := json.RawMessage(`{"type":"object","properties":{}}`)
	valid := func() pluginapi.Description {
		return pluginapi.Description{
			Name:       "todo",
			Version:    "1.0.0",
			Tools:      []pluginapi.ToolSpec{{Name: "todo_write", Schema: obj}, {Name: "a-b_C9", Schema: json.RawMessage(`{"type":"object"}`)}},
			EventTypes: []string{"todo/write", "notes/added"},
		}
	}
	tests := map[string]struct {
		edit func(*pluginapi.Description)
		want string // substring of the error; "" for none
	}{
		"valid":            {edit: func(*pluginapi.Description) {}},
		"no tools":         {edit: func(d *pluginapi.Description) { d.Tools = nil }},
		"empty name":       {edit: func(d *pluginapi.Description) { d.Name = "" }, want: "empty plugin name"},
		"name with space":  {edit: func(d *pluginapi.Description) { d.Name = "my plugin" }, want: "spaces"},
		"empty tool name":  {edit: func(d *pluginapi.Description) { d.Tools[0].Name = "" }, want: `name ""`},
		"tool name dot":    {edit: func(d *pluginapi.Description) { d.Tools[0].Name = "todo.write" }, want: "does not match"},
		"tool name 65":     {edit: func(d *pluginapi.Description) { d.Tools[0].Name = strings.Repeat("a", 65) }, want: "does not match"},
		"tool name 64":     {edit: func(d *pluginapi.Description) { d.Tools[0].Name = strings.Repeat("a", 64) }},
		"duplicate tool":   {edit: func(d *pluginapi.Description) { d.Tools[1].Name = "todo_write" }, want: "listed twice"},
		"schema missing":   {edit: func(d *pluginapi.Description) { d.Tools[0].Schema = nil }, want: "parameter schema"},
		"schema array":     {edit: func(d *pluginapi.Description) { d.Tools[0].Schema = json.RawMessage(`[]`) }, want: "parameter schema"},
		"schema broken":    {edit: func(d *pluginapi.Description) { d.Tools[0].Schema = json.RawMessage(`{"type":`) }, want: "parameter schema"},
		"schema no type":   {edit: func(d *pluginapi.Description) { d.Tools[0].Schema = json.RawMessage(`{}`) }, want: "parameter schema"},
		"schema string":    {edit: func(d *pluginapi.Description) { d.Tools[0].Schema = json.RawMessage(`{"type":"string"}`) }, want: "parameter schema"},
		"event no slash":   {edit: func(d *pluginapi.Description) { d.EventTypes = []string{"todo"} }, want: "family/name"},
		"event empty half": {edit: func(d *pluginapi.Description) { d.EventTypes = []string{"todo/"} }, want: "family/name"},
		"event space":      {edit: func(d *pluginapi.Description) { d.EventTypes = []string{"todo/wr ite"} }, want: "family/name"},
		"event host type":  {edit: func(d *pluginapi.Description) { d.EventTypes = []string{"tool/result"} }, want: "belongs to the host"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := valid()
			tt.edit(&d)
			err := validateDescription(d)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("validateDescription: %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("validateDescription: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestValidateEvents(t *testing.T) {
	t.Parallel()
	declared := map[string]bool{"todo/write": true}
	tests := map[string]struct {
		events []pluginapi.Event
		want   string
	}{
		"none":       {},
		"declared":   {events: []pluginapi.Event{{Type: "todo/write", Data: json.RawMessage(`{"todos":[]}`)}}},
		"undeclared": {events: []pluginapi.Event{{Type: "todo/write", Data: json.RawMessage(`{}`)}, {Type: "x/y", Data: json.RawMessage(`{}`)}}, want: `plugin todo proposed an undeclared event type "x/y"`},
		"array data": {events: []pluginapi.Event{{Type: "todo/write", Data: json.RawMessage(`[1]`)}}, want: "not a JSON object"},
		"bad data":   {events: []pluginapi.Event{{Type: "todo/write", Data: json.RawMessage(`{"a":`)}}, want: "not a JSON object"},
		"no data":    {events: []pluginapi.Event{{Type: "todo/write"}}, want: "not a JSON object"},
		"too big": {events: []pluginapi.Event{{Type: "todo/write", Data: json.RawMessage(`{"a":"` + strings.Repeat("x", event.MaxProposedBytes) + `"}`)}},
			want: `plugin todo proposed a "todo/write" event: data is`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			events, err := checkEvents("todo", declared, tt.events)
			if got := errText(err); !strings.Contains(got, tt.want) || (tt.want == "") != (err == nil) {
				t.Fatalf("checkEvents: %q, want %q", got, tt.want)
			}
			for i, e := range events {
				if p, ok := e.Proposed(); !ok || p.Type() != event.Type(tt.events[i].Type) {
					t.Errorf("event %d = %+v, want it to carry its checked event", i, e)
				}
			}
		})
	}
}

func TestCheckArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args, want, err string
	}{
		{args: `{"a":1}`, want: `{"a":1}`},
		{args: "  {}\n", want: `{}`},
		{args: "", want: `{}`},
		{args: " \t", want: `{}`},
		{args: `[1]`, err: "want a JSON object, got an array"},
		{args: `"x"`, err: "want a JSON object, got a string"},
		{args: `null`, err: "want a JSON object, got null"},
		{args: `12`, err: "want a JSON object, got a number"},
		{args: `true`, err: "want a JSON object, got a boolean"},
		{args: `{"a":`, err: "not valid JSON"},
		{args: `{} {}`, err: "not valid JSON"},
	}
	for _, tt := range tests {
		got, err := checkArgs(tt.args)
		if string(got) != tt.want || errText(err) != tt.err {
			t.Errorf("checkArgs(%q) = %q, %q; want %q, %q", tt.args, got, errText(err), tt.want, tt.err)
		}
	}
}

func TestBreaker(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	b := breaker{max: 5, window: time.Minute, base: 100 * time.Millisecond, ceiling: 300 * time.Millisecond}
	if got := b.readyAt(t0); !got.IsZero() {
		t.Fatalf("readyAt without crashes = %v, want zero", got)
	}
	steps := []struct {
		crash   time.Duration
		tripped bool
		ready   time.Duration // readyAt(crash) - t0
	}{
		{crash: 0, ready: 100 * time.Millisecond},
		{crash: time.Second, ready: time.Second + 200*time.Millisecond},
		{crash: 2 * time.Second, ready: 2*time.Second + 300*time.Millisecond},
		{crash: 3 * time.Second, ready: 3*time.Second + 300*time.Millisecond}, // capped
		// At 61 s the crashes at 0 and 1 s have left the window.
		{crash: 61 * time.Second, ready: 61*time.Second + 300*time.Millisecond},                // 2, 3, 61
		{crash: 62 * time.Second, ready: 62*time.Second + 300*time.Millisecond},                // 3, 61, 62
		{crash: 62500 * time.Millisecond, ready: 62800 * time.Millisecond},                     // 3, 61, 62, 62.5
		{crash: 63500 * time.Millisecond, ready: 63800 * time.Millisecond},                     // 61, 62, 62.5, 63.5
		{crash: 64 * time.Second, tripped: true, ready: 64*time.Second + 300*time.Millisecond}, // 5 in 60 s
	}
	for i, s := range steps {
		if got := b.record(at(s.crash)); got != s.tripped {
			t.Fatalf("step %d: record = %v, want %v", i, got, s.tripped)
		}
		if got := b.readyAt(at(s.crash)); !got.Equal(at(s.ready)) {
			t.Fatalf("step %d: readyAt = %v, want %v", i, got.Sub(t0), s.ready)
		}
	}
	if n := b.count(at(200 * time.Second)); n != 0 {
		t.Fatalf("count long after = %d, want 0", n)
	}
	if got := b.readyAt(at(200 * time.Second)); !got.IsZero() {
		t.Fatalf("readyAt long after = %v, want zero", got)
	}
}

func TestTailText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 400) // 800 bytes
	tests := map[string]struct {
		lines []string
		want  string
	}{
		"empty": {},
		"plain": {lines: []string{"one", "", "  two  "}, want: "one | two"},
		"hclog": {
			lines: []string{`{"@level":"debug","@message":"configured"}`, `{"@level":"error","@message":"write failed","error":"disk full"}`, `{"@message":"bye"}`},
			want:  "write failed: disk full | bye",
		},
		"not js": {lines: []string{`{not json`}, want: `{not json`},
		"panic": {
			lines: []string{"starting", "panic: boom", "", "goroutine 1 [running]:", "main.main()"},
			want:  "panic: boom | goroutine 1 [running]: | main.main()",
		},
		"long": {lines: []string{"first", long}, want: "…" + strings.Repeat("é", 250)},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tailText(tt.lines); got != tt.want {
				t.Fatalf("tailText = %q, want %q", got, tt.want)
			}
		})
	}
	if got := tailText([]string{"panic: " + long}); len(got) > maxTail+len("…") || !strings.HasPrefix(got, "panic: ") || !strings.HasSuffix(got, "…") {
		t.Fatalf("tailText(long panic) = %q", got)
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	write := func(path string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(a, "zeta"), 0o755)
	write(filepath.Join(a, "alpha"), 0o700)
	write(filepath.Join(a, "noexec"), 0o644)
	write(filepath.Join(a, ".hidden"), 0o755)
	write(filepath.Join(a, "alpha~"), 0o755)
	write(filepath.Join(a, "x.swp"), 0o755)
	if err := os.Mkdir(filepath.Join(a, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(b, "beta"), 0o755)
	if err := os.Symlink(filepath.Join(a, "zeta"), filepath.Join(b, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(a, "missing"), filepath.Join(b, "dangling")); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Warn})
	got := discover([]string{a, filepath.Join(a, "nope"), b, a + "/"}, log)
	var paths []string
	var failed []string
	for _, f := range got {
		if f.err != nil {
			failed = append(failed, f.path)
			continue
		}
		paths = append(paths, f.path)
	}
	want := []string{filepath.Join(a, "alpha"), filepath.Join(a, "zeta"), filepath.Join(b, "beta"), filepath.Join(b, "link")}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{filepath.Join(b, "dangling")}, failed); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if !strings.Contains(logs.String(), "plugin dir does not exist") || !strings.Contains(logs.String(), filepath.Join(a, "nope")) {
		t.Errorf("log lacks the missing dir warning:\n%s", logs.String())
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestFlight(t *testing.T) {
	t.Parallel()
	t.Run("idle drain shuts at once", func(t *testing.T) {
		t.Parallel()
		f := newFlight()
		if !f.enter() {
			t.Fatal("enter on a new flight failed")
		}
		f.leave()
		if n := f.drain(context.Background(), time.Hour, time.Hour); n != 0 {
			t.Errorf("drain cancelled %d calls", n)
		}
		if f.enter() {
			t.Error("enter after the drain succeeded")
		}
	})
	t.Run("drain waits for the calls in flight", func(t *testing.T) {
		t.Parallel()
		f := newFlight()
		f.enter()
		drained := make(chan int)
		go func() { drained <- f.drain(context.Background(), time.Hour, time.Hour) }()
		time.Sleep(20 * time.Millisecond)
		// While it drains, a late call may still get in (it listed this
		// process); the drain waits for it too.
		if !f.enter() {
			t.Fatal("enter during the drain failed")
		}
		f.leave()
		select {
		case <-drained:
			t.Fatal("drained with a call in flight")
		case <-time.After(20 * time.Millisecond):
		}
		f.leave()
		if n := <-drained; n != 0 {
			t.Errorf("drain cancelled %d calls", n)
		}
		if f.enter() || f.inFlight() != 0 {
			t.Error("the gate is open after the drain")
		}
		if f.abort.Err() != nil {
			t.Error("the calls were aborted")
		}
	})
	t.Run("timeout cancels", func(t *testing.T) {
		t.Parallel()
		f := newFlight()
		f.enter()
		f.enter()
		go func() {
			<-f.abort.Done()
			f.leave()
			f.leave()
		}()
		if n := f.drain(context.Background(), 10*time.Millisecond, time.Second); n != 2 {
			t.Errorf("drain cancelled %d calls, want 2", n)
		}
		if !errors.Is(context.Cause(f.abort), errDrainTimeout) || f.enter() {
			t.Errorf("after the timeout: cause %v", context.Cause(f.abort))
		}
	})
	t.Run("ctx ends the drain", func(t *testing.T) {
		t.Parallel()
		f := newFlight()
		f.enter()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if n := f.drain(ctx, time.Hour, 10*time.Millisecond); n != 1 {
			t.Errorf("drain cancelled %d calls, want 1", n)
		}
	})
}

func TestRegistryWithFile(t *testing.T) {
	t.Parallel()
	tb := &Toolbox{dirRank: map[string]int{"/b": 0, "/a": 1}}
	mk := func(path, name string) *member {
		return &member{plug: &plugin{path: path, desc: pluginapi.Description{Name: name,
			Tools: []pluginapi.ToolSpec{{Name: name + "_tool"}}}}, inst: &instance{}}
	}
	r := newRegistry(nil, nil)
	for _, m := range []*member{mk("/a/x", "ax"), mk("/b/z", "bz"), mk("/b/c", "bc")} {
		r = r.withFile(m.plug.path, m, nil, tb.pathOrder)
	}
	r = r.withFile("/a/f", nil, &Failure{Path: "/a/f", Err: errors.New("x")}, tb.pathOrder)
	r = r.withFile("/b/f", nil, &Failure{Path: "/b/f", Err: errors.New("x")}, tb.pathOrder)
	var got []string
	for _, m := range r.members {
		got = append(got, m.plug.path)
	}
	for _, f := range r.failures {
		got = append(got, f.Path)
	}
	if want := []string{"/b/c", "/b/z", "/a/x", "/b/f", "/a/f"}; !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
	if _, ok := r.tools["bz_tool"]; !ok {
		t.Errorf("tools = %v", r.tools)
	}
	// Replacing a member keeps its place; a failure at its path goes.
	r = r.withFile("/b/f", mk("/b/f", "bf"), nil, tb.pathOrder)
	r = r.withFile("/b/z", nil, nil, tb.pathOrder)
	got = got[:0]
	for _, m := range r.members {
		got = append(got, m.plug.path)
	}
	if want := []string{"/b/c", "/b/f", "/a/x"}; !slices.Equal(got, want) || len(r.failures) != 1 {
		t.Errorf("members = %v, failures %v", got, r.failures)
	}
	if _, ok := r.tools["bz_tool"]; ok {
		t.Errorf("a removed member's tool is listed")
	}
	if err := r.conflict("/a/new", pluginapi.Description{Name: "other", Tools: []pluginapi.ToolSpec{{Name: "bf_tool"}}}); err == nil ||
		!strings.Contains(err.Error(), `tool "bf_tool" is already offered by /b/f`) {
		t.Errorf("conflict = %v", err)
	}
	if err := r.conflict("/b/f", pluginapi.Description{Name: "bf", Tools: []pluginapi.ToolSpec{{Name: "bf_tool"}}}); err != nil {
		t.Errorf("a new version clashes with its own old version: %v", err)
	}
}
