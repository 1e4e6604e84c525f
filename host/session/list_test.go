package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/harness-dev/harness/host/event"
)

func TestList(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	if got, err := st.List(); err != nil || len(got) != 0 {
		t.Fatalf("List of a missing directory = %v, %v", got, err)
	}

	long := "Please   refactor\n\tthe " + strings.Repeat("very ", 40) + "long function"
	empty := create(t, st, "empty") // created at t0+1s
	empty.Close()

	a := create(t, st, "a") // t0+2s
	mustAppend(t, a, simpleTurn(1, long)...)
	mustAppend(t, a, simpleTurn(2, "second")...) // last event at t0+24s
	a.Close()

	b, err := st.Create(CreateOptions{ID: "b", Cwd: "/src/other", Parent: "a"}) // t0+25s
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, b, event.TurnStart{Turn: 1}, event.UserMessage{Content: []event.Content{
		{Type: event.ContentResourceLink, Name: "x.go", URI: "file:///x.go"},
		{Type: event.ContentText, Text: "explain"},
	}}) // t0+27s; b stays open (locked) while we list

	// c has a torn tail and an open turn; List must neither cut nor close.
	c := create(t, st, "c")                    // t0+28s
	mustAppend(t, c, event.TurnStart{Turn: 1}) // t0+29s
	c.Close()
	cpath := filepath.Join(st.Dir, "c.jsonl")
	f, _ := os.OpenFile(cpath, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"seq":1,"ti`)
	f.Close()
	cbefore, _ := os.ReadFile(cpath)

	// d is corrupt in the middle; unrelated files are ignored.
	writeRaw(t, st, "d", [][2]string{{"turn/start", `{"turn":1}`}, {"turn/end", `{"turn":1,"reason":"completed"}`}})
	dpath := filepath.Join(st.Dir, "d.jsonl")
	dd, _ := os.ReadFile(dpath)
	os.WriteFile(dpath, []byte(strings.Replace(string(dd), `"seq":0`, `"seq":5`, 1)), 0o600)
	os.WriteFile(filepath.Join(st.Dir, "notes.txt"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(st.Dir, ".hidden.jsonl"), []byte("x"), 0o600)
	os.Mkdir(filepath.Join(st.Dir, "dir.jsonl"), 0o700)

	got, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	want := []Summary{
		{ID: "c", Cwd: "/src/project", CreatedAt: at(28), UpdatedAt: at(29), Turns: 1},
		{ID: "b", Cwd: "/src/other", Parent: "a", CreatedAt: at(25), UpdatedAt: at(27), Turns: 1, FirstPrompt: "[resource: x.go <file:///x.go>] explain"},
		{ID: "a", Cwd: "/src/project", CreatedAt: at(2), UpdatedAt: at(24), Turns: 2,
			FirstPrompt: "Please refactor the " + strings.Repeat("very ", 15) + "very…"},
		{ID: "empty", Cwd: "/src/project", CreatedAt: at(1), UpdatedAt: at(1)},
		{ID: "d"}, // Err set; sorts last with a zero time
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(Summary{}, "Err")); d != "" {
		t.Errorf("List (-want +got):\n%s", d)
	}
	if len(got) == 5 {
		if got[4].Err == nil || !strings.Contains(got[4].Err.Error(), "d.jsonl:2: seq 5, want 0") {
			t.Errorf("corrupt session: Err = %v", got[4].Err)
		}
		for _, s := range got[:4] {
			if s.Err != nil {
				t.Errorf("%s: Err = %v", s.ID, s.Err)
			}
		}
		if n := len([]rune(got[2].FirstPrompt)); n != 100 {
			t.Errorf("FirstPrompt is %d runes, want 100", n)
		}
	}
	if after, _ := os.ReadFile(cpath); string(after) != string(cbefore) {
		t.Error("List changed a torn file")
	}
	b.Close()
}

func TestDepth(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	root := create(t, st, "root")
	child, err := st.Create(CreateOptions{ID: "child", Cwd: root.Cwd(), Parent: "root"})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	grand, err := st.Create(CreateOptions{ID: "grand", Cwd: root.Cwd(), Parent: "child"})
	if err != nil {
		t.Fatal(err)
	}
	defer grand.Close()
	for id, want := range map[string]int{"root": 0, "child": 1, "grand": 2} {
		if got, err := st.Depth(id); err != nil || got != want {
			t.Errorf("Depth(%s) = %d, %v; want %d", id, got, err, want)
		}
	}
	if _, err := st.Depth("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Depth(nope) err = %v, want ErrNotFound", err)
	}
}

// TestListUsageByModel: a listing sums each turn's usage under the model
// the log says served it — none for a log that never said (written before
// the host recorded a session's model at its start).
func TestListUsageByModel(t *testing.T) {
	t.Parallel()
	turn := func(n, in int) [][2]string {
		return [][2]string{
			{"turn/start", fmt.Sprintf(`{"turn":%d}`, n)},
			{"turn/end", fmt.Sprintf(`{"turn":%d,"reason":"completed","usage":{"inputTokens":%d,"outputTokens":1}}`, n, in)},
		}
	}
	opt := func(data string) [][2]string { return [][2]string{{"config/option", data}} }
	cat := func(parts ...[][2]string) [][2]string { return slices.Concat(parts...) }
	use := func(in int) event.Usage { return event.Usage{InputTokens: in, OutputTokens: 1} }
	for _, tc := range []struct {
		name string
		recs [][2]string
		want map[Model]event.Usage
	}{
		{"started on a model", cat(opt(`{"id":"model","value":"script","provider":"script","by":"host"}`), turn(1, 10), turn(2, 5)),
			map[Model]event.Usage{{Provider: "script", Name: "script"}: use(10).Add(use(5))}},
		{"switched", cat(opt(`{"id":"model","value":"deepseek-chat","provider":"deepseek","by":"host"}`), turn(1, 10),
			opt(`{"id":"model","value":"deepseek-reasoner","provider":"deepseek","by":"client"}`), turn(2, 5)),
			map[Model]event.Usage{{Provider: "deepseek", Name: "deepseek-chat"}: use(10), {Provider: "deepseek", Name: "deepseek-reasoner"}: use(5)}},
		{"old log: no model, then a switch without provider", cat(turn(1, 10), opt(`{"id":"model","value":"deepseek-reasoner"}`), turn(2, 5)),
			map[Model]event.Usage{{}: use(10), {Name: "deepseek-reasoner"}: use(5)}},
		{"effort is not a model", cat(opt(`{"id":"model","value":"m","provider":"p","by":"host"}`), opt(`{"id":"reasoning_effort","value":"high"}`), turn(1, 3)),
			map[Model]event.Usage{{Provider: "p", Name: "m"}: use(3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := newStore(t)
			writeRaw(t, st, "s", tc.recs)
			got, err := st.List()
			if err != nil || len(got) != 1 || got[0].Err != nil {
				t.Fatalf("List = %+v, %v", got, err)
			}
			if d := cmp.Diff(tc.want, got[0].Usage); d != "" {
				t.Errorf("Usage (-want +got):\n%s", d)
			}
		})
	}
}
