package termview

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
)

// emptySource is a session with no events, for a view that only prompts.
type emptySource struct{}

func (emptySource) Follow(context.Context, int64) iter.Seq[event.Event] {
	return func(func(event.Event) bool) {}
}
func (emptySource) Events() []event.Event { return nil }

func TestTermAsker(t *testing.T) {
	t.Parallel()
	const scoped = "Allow bash: rm -rf build? [y]es / [n]o / [a]lways for `rm -rf …`: "
	tests := map[string]struct {
		input    string
		noAlways bool
		want     event.Decision
		question string
	}{
		"yes":                  {input: "y\n", want: event.AllowOnce, question: scoped},
		"always":               {input: "always\n", want: event.AllowAlways, question: scoped},
		"no":                   {input: "n\n", want: event.RejectOnce, question: scoped},
		"enter rejects":        {input: "\n", want: event.RejectOnce, question: scoped},
		"asks again on junk":   {input: "maybe\nYES\n", want: event.AllowOnce, question: scoped},
		"end of input rejects": {input: "", want: event.RejectOnce, question: scoped},
		"no always to give": {input: "a\ny\n", noAlways: true, want: event.AllowOnce,
			question: "Allow bash: rm -rf build? [y]es / [n]o: Allow bash: rm -rf build? [y]es / [n]o: "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			a := &Asker{view: New(&out, emptySource{}, false), in: strings.NewReader(tc.input)}
			got, err := a.Ask(context.Background(), permission.Request{Tool: "bash", Args: json.RawMessage(`{"command":"rm -rf build"}`),
				Scope: []string{"rm -rf"}, NoAlways: tc.noAlways})
			if err != nil || got != tc.want {
				t.Errorf("Ask = %q, %v; want %q", got, err, tc.want)
			}
			if !strings.Contains(out.String(), tc.question) {
				t.Errorf("question = %q, want %q", out.String(), tc.question)
			}
		})
	}
}

// TestTermAskerProtected: the question about a call touching a protected
// path says so and why, and offers no [a]lways.
func TestTermAskerProtected(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	a := &Asker{view: New(&out, emptySource{}, false), in: strings.NewReader("a\ny\n")}
	got, err := a.Ask(context.Background(), permission.Request{Tool: "edit", Args: json.RawMessage(`{"file_path":".git/config"}`),
		NoAlways: true, Protected: ".git/config", ProtectedWhy: "it is in a git folder (.git)"})
	if err != nil || got != event.AllowOnce {
		t.Errorf("Ask = %q, %v; want allow once (\"a\" is no answer)", got, err)
	}
	for _, want := range []string{".git/config is protected: it is in a git folder (.git).", `"Always" is not offered`, "allow-all",
		"Allow edit {\"file_path\":\".git/config\"}? [y]es / [n]o: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("question = %q, want %q in it", out.String(), want)
		}
	}
	if strings.Contains(out.String(), "[a]lways") {
		t.Errorf("question = %q offers always", out.String())
	}
}

// TestTermAskerEscalation: the question about a bash call asking to run
// outside the sandbox shows its justification on one line, escaped, says
// it runs outside the sandbox, and offers no [a]lways.
func TestTermAskerEscalation(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	a := &Asker{view: New(&out, emptySource{}, false), in: strings.NewReader("a\nn\n")}
	got, err := a.Ask(context.Background(), permission.Request{Tool: "bash", Args: json.RawMessage(`{"command":"make install","sandbox":"off"}`),
		NoAlways: true, Protected: "this command", ProtectedWhy: "it asks to run outside the sandbox",
		Escalate: true, Justification: "install \x1b[2Kthe\u202etool\ninto ~/.local/bin"})
	if err != nil || got != event.RejectOnce {
		t.Errorf("Ask = %q, %v; want reject once", got, err)
	}
	q := out.String()
	for _, want := range []string{"OUTSIDE the sandbox", `"install \x1b[2Kthe\u202etool into ~/.local/bin"`, "Allow bash: make install? [y]es / [n]o: "} {
		if !strings.Contains(q, want) {
			t.Errorf("question = %q, want %q in it", q, want)
		}
	}
	if strings.Contains(q, "[a]lways") || strings.ContainsAny(q, "\x1b\u202e") {
		t.Errorf("question = %q offers always or holds a raw escape", q)
	}
}

func TestTermAskerCancelled(t *testing.T) {
	t.Parallel()
	blocked := &blockingReader{release: make(chan struct{})}
	defer close(blocked.release)
	a := &Asker{view: New(&strings.Builder{}, emptySource{}, false), in: blocked}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := a.Ask(ctx, permission.Request{Tool: "bash"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's", err)
	}
}

type blockingReader struct{ release chan struct{} }

func (b *blockingReader) Read([]byte) (int, error) {
	<-b.release
	return 0, errors.New("closed")
}
