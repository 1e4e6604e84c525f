package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/permission"
)

// printer is the example's live sink: it prints the answer as it streams.
type printer struct{ strings.Builder }

func (p *printer) TextDelta(_, text string)       { p.WriteString(text) }
func (p *printer) ReasoningDelta(_, _ string)     {}
func (p *printer) ToolProgress(_, _, text string) {}

// A program embedding harness builds a Runtime from a Config, starts the
// plugins, and runs turns of sessions: here one turn in which the model
// (the script provider) writes a todo list with the real todo plugin and
// runs a command with the real bash plugin.
func Example() {
	model, err := script.Load(strings.NewReader(strings.Join([]string{
		`{"toolCalls":[{"id":"c1","name":"todo_write","args":{"todos":[{"content":"greet","status":"in_progress"}]}}]}`,
		`{"toolCalls":[{"id":"c2","name":"bash","args":{"command":"echo hello from bash","description":"Greet"}}],"expect":{"lastRole":"tool"}}`,
		`{"text":"Greeted.","expect":{"lastRole":"tool","lastContains":"hello from bash"}}`,
	}, "\n")))
	if err != nil {
		log.Fatal(err)
	}
	state, err := os.MkdirTemp("", "engine-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(state)

	rt, err := engine.New(engine.Config{
		StateDir:   state,
		PluginDirs: []string{pluginDir},
		Model:      model,
		ModelName:  "script",
		MaxSteps:   10,
		// Nobody to ask in this program: every call is allowed.
		Policy: permission.Policy{Mode: permission.ModeAllowAll},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	ctx := context.Background()
	if err := rt.StartTools(ctx); err != nil {
		log.Fatal(err)
	}
	s, err := rt.CreateSession(state)
	if err != nil {
		log.Fatal(err)
	}
	defer rt.CloseSession(s)

	var live printer
	out := rt.Run(ctx, s, nil, event.Text("greet me"), &live, nil)
	fmt.Println("turn:", out.Reason, out.Err)
	fmt.Println("answer:", live.String())
	for _, t := range s.Todos() {
		fmt.Println("todo:", t.Content, t.Status)
	}
	// Output:
	// turn: completed <nil>
	// answer: Greeted.
	// todo: greet in_progress
}
