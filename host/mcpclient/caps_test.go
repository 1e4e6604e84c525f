package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/host/event"
)

// capsSet starts mcptest as server "caps" with opts and sampling as
// given, and waits until it is up.
func capsSet(t *testing.T, opts Options, sampling bool, args ...string) *Set {
	t.Helper()
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	opts.Environ = os.Environ()
	set := Start([]ServerConfig{{Name: "caps", Command: testServer(t), Args: args, Sampling: sampling, Source: "/etc/caps.json"}}, opts)
	t.Cleanup(func() { _ = set.Close() })
	if len(set.Tools()) == 0 {
		t.Fatal("mcptest did not come up")
	}
	return set
}

func TestElicitation(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []ElicitRequest
	var gotCall CallInfo
	answers := map[string]ElicitResult{
		"accept":  {Action: ActionAccept, Content: map[string]any{"color": "teal", "sure": true}},
		"decline": {Action: ActionDecline},
	}
	answer := "accept"
	set := capsSet(t, Options{Elicit: func(ctx context.Context, req ElicitRequest) (ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, req)
		gotCall, _ = CallOf(ctx)
		if answer == "error" {
			return ElicitResult{}, errors.New("the editor went away")
		}
		return answers[answer], nil
	}}, false)
	tests := []struct{ answer, want string }{
		{"accept", `action accept content {"color":"teal","sure":true}`},
		{"decline", "action decline content null"},
		{"error", "action decline content null"}, // a failure to ask declines
	}
	for _, tc := range tests {
		mu.Lock()
		answer = tc.answer
		mu.Unlock()
		ctx := WithCall(context.Background(), CallInfo{SessionID: "s1", CallID: "call-" + tc.answer})
		r := set.Call(ctx, "mcp__caps__ask", nil)
		if r.IsError || r.Content != tc.want {
			t.Errorf("%s: ask = %q (error %v), want %q", tc.answer, r.Content, r.IsError, tc.want)
		}
		mu.Lock()
		if gotCall != (CallInfo{SessionID: "s1", CallID: "call-" + tc.answer}) {
			t.Errorf("%s: the question came with call %+v, want the call's", tc.answer, gotCall)
		}
		mu.Unlock()
	}
	if len(got) != 3 || got[0].Server != "caps" || got[0].Message != "Your favourite color?" || !strings.Contains(string(got[0].Schema), `"color"`) {
		t.Errorf("questions = %+v", got)
	}

	// with no one to ask, the question is declined
	none := capsSet(t, Options{}, false)
	if r := none.Call(context.Background(), "mcp__caps__ask", nil); r.Content != "action decline content null" {
		t.Errorf("with no Elicit, ask = %q; want declined", r.Content)
	}
}

func TestSampling(t *testing.T) {
	t.Parallel()
	var got SampleRequest
	sample := func(ctx context.Context, req SampleRequest) (SampleResult, error) {
		got = req
		if c, _ := CallOf(ctx); c.CallID != "c1" {
			return SampleResult{}, errors.New("no call in the context")
		}
		return SampleResult{Text: "four", Model: "m1"}, nil
	}
	ctx := WithCall(context.Background(), CallInfo{SessionID: "s", CallID: "c1"})

	off := capsSet(t, Options{Sample: sample}, false)
	r := off.Call(ctx, "mcp__caps__sample", json.RawMessage(`{"text":"2+2?"}`))
	if !r.IsError || !strings.Contains(r.Content, "MCP server caps asked to sample the model; sampling is off for it") ||
		!strings.Contains(r.Content, `"sampling": true`) || !strings.Contains(r.Content, "caps.json") {
		t.Errorf("sampling off: %q (error %v); want the refusal naming the key and the file", r.Content, r.IsError)
	}
	if got.Server != "" {
		t.Errorf("Sample was called though sampling is off: %+v", got)
	}

	on := capsSet(t, Options{Sample: sample}, true)
	r = on.Call(ctx, "mcp__caps__sample", json.RawMessage(`{"text":"2+2?"}`))
	if r.IsError || r.Content != "model m1 said: four" {
		t.Errorf("sampling on: %q (error %v)", r.Content, r.IsError)
	}
	if got.Server != "caps" || got.System != "be brief" || got.MaxTokens != 100 || len(got.Messages) != 1 || got.Messages[0] != (SampleMessage{Role: "user", Text: "2+2?"}) {
		t.Errorf("request = %+v", got)
	}
}

func TestRoots(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	set := capsSet(t, Options{Cwd: cwd}, false)
	r := set.Call(context.Background(), "mcp__caps__roots", nil)
	if want := "roots (0 changes): file://" + filepath.ToSlash(cwd); r.Content != want {
		t.Errorf("roots = %q, want %q", r.Content, want)
	}
	extra := t.TempDir()
	set.SetRoots([]string{cwd, extra, cwd})
	r = set.Call(context.Background(), "mcp__caps__roots", nil)
	want := "file://" + cwd + " file://" + extra
	if !strings.HasSuffix(r.Content, want) || strings.Contains(r.Content, "(0 changes)") {
		t.Errorf("after SetRoots, roots = %q; want %q after a change", r.Content, want)
	}
	if got := set.Roots(); len(got) != 2 {
		t.Errorf("Roots = %v", got)
	}
}

func TestPrompts(t *testing.T) {
	t.Parallel()
	set := capsSet(t, Options{}, false)
	changed := make(chan struct{}, 8)
	set.Watch(func() { changed <- struct{}{} })
	ps := set.Prompts()
	var cmds []string
	for _, p := range ps {
		cmds = append(cmds, p.Command())
	}
	if strings.Join(cmds, " ") != "caps:greet caps:recap" {
		t.Fatalf("prompts = %v", cmds)
	}
	if ps[0].Title != "Greet someone" || ps[0].Hint() != "name [style]" {
		t.Errorf("greet = %+v, hint %q", ps[0], ps[0].Hint())
	}

	ctx := context.Background()
	tests := []struct {
		cmd, line, want, err string
	}{
		{"caps:greet", "Ada Lovelace", `Say hello to Ada Lovelace, style "".`, ""},
		{"caps:greet", "name=Ada style=warm", `Say hello to Ada, style "warm".`, ""},
		{"caps:greet", "style=warm", "", "/caps:greet needs name"},
		{"caps:greet", "", "", "/caps:greet needs name"},
		{"caps:recap", "", "Recap what we did.", ""},
		{"caps:recap", "more", "", "/caps:recap takes no arguments"},
		{"caps:nope", "", "", "no such MCP prompt"},
	}
	for _, tc := range tests {
		got, err := set.GetPrompt(ctx, tc.cmd, tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("/%s %s: err %v, want %q", tc.cmd, tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) == 0 || got[0].Text != tc.want {
			t.Errorf("/%s %s = %+v, %v; want %q", tc.cmd, tc.line, got, err, tc.want)
		}
	}
	greet, _ := set.GetPrompt(ctx, "caps:greet", "Ada")
	if len(greet) != 2 || greet[1].Type != event.ContentImage || greet[1].MimeType != "image/png" || len(greet[1].Data) == 0 {
		t.Errorf("greet's image = %+v", greet)
	}

	// prompts/list_changed: the watchers hear of it, the list has the new one
	for len(changed) > 0 {
		<-changed
	}
	if r := set.Call(ctx, "mcp__caps__add_prompt", nil); r.IsError {
		t.Fatal(r.Content)
	}
	<-changed
	if _, ok := set.LookupPrompt("caps:late"); !ok {
		t.Errorf("after prompts/list_changed, prompts = %+v", set.Prompts())
	}
}

func TestInstructions(t *testing.T) {
	t.Parallel()
	set := capsSet(t, Options{}, false, "-instructions", "Call echo before peek.")
	if got := set.Instructions(); got != "\n# Instructions from MCP server caps:\nCall echo before peek.\n" {
		t.Errorf("Instructions = %q", got)
	}
	long := strings.Repeat("é", MaxInstructions+10)
	set = capsSet(t, Options{}, false, "-instructions", long)
	got := set.Instructions()
	if !strings.Contains(got, strings.Repeat("é", MaxInstructions)+"\n[cut: the server's instructions are 2010 characters; the first 2000 are shown]") ||
		strings.Contains(got, strings.Repeat("é", MaxInstructions+1)) {
		t.Errorf("long instructions not cut as said: %q", got[len(got)-120:])
	}
	if none := capsSet(t, Options{}, false); none.Instructions() != "" {
		t.Errorf("a server without instructions gives %q", none.Instructions())
	}
}

func TestPromptParseArgs(t *testing.T) {
	t.Parallel()
	p := Prompt{Server: "s", Name: "p", Args: []PromptArg{{Name: "a", Required: true}, {Name: "b"}}}
	tests := map[string]struct {
		line string
		want map[string]string
		err  bool
	}{
		"rest":       {"x y=1 z", map[string]string{"a": "x y=1 z"}, false},
		"pairs":      {"b=2 a=1", map[string]string{"a": "1", "b": "2"}, false},
		"unknownKey": {"c=1", map[string]string{"a": "c=1"}, false},
		"missing":    {"b=2", nil, true},
		"empty":      {"  ", nil, true},
	}
	for name, tc := range tests {
		got, err := p.ParseArgs(tc.line)
		if (err != nil) != tc.err || (!tc.err && !mapsEqual(got, tc.want)) {
			t.Errorf("%s: ParseArgs(%q) = %v, %v", name, tc.line, got, err)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// FuzzPromptParseArgs: any typed line maps to known arguments only, or to
// an error; a required argument is never left empty without one.
func FuzzPromptParseArgs(f *testing.F) {
	for _, s := range []string{"", "x", "a=1 b=2", "a= b=", "c=1", "  a=1\tb", "é=ü"} {
		f.Add(s)
	}
	p := Prompt{Server: "s", Name: "p", Args: []PromptArg{{Name: "a", Required: true}, {Name: "b"}}}
	f.Fuzz(func(t *testing.T, line string) {
		got, err := p.ParseArgs(line)
		if err != nil {
			return
		}
		if got["a"] == "" {
			t.Errorf("ParseArgs(%q) = %v: the required argument is empty", line, got)
		}
		for k := range got {
			if k != "a" && k != "b" {
				t.Errorf("ParseArgs(%q) = %v: unknown argument %q", line, got, k)
			}
		}
	})
}

// TestParseFileSampling: "sampling": true allows a server to sample;
// absent or false does not; any other value is a bad file.
func TestParseFileSampling(t *testing.T) {
	t.Parallel()
	got, err := ParseFile([]byte(`{"mcpServers":{"a":{"command":"x","sampling":true},"b":{"command":"y"},"c":{"type":"http","url":"http://127.0.0.1/mcp","sampling":false}}}`), "f", nil)
	if err != nil || len(got) != 3 || !got[0].Sampling || got[1].Sampling || got[2].Sampling {
		t.Errorf("ParseFile = %+v, %v", got, err)
	}
	if _, err := ParseFile([]byte(`{"mcpServers":{"a":{"command":"x","sampling":"yes"}}}`), "f", nil); err == nil {
		t.Error(`"sampling": "yes" was taken`)
	}
}
