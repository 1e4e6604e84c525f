package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/harness-dev/harness/pluginapi"
)

// The model-facing description and the wire schema of todo_write.
var (
	//go:embed description.md
	description string
	//go:embed schema.json
	schema []byte
)

const (
	toolName  = "todo_write"
	eventType = "todo/write"
)

// Todo states; the same triple as ACP's plan entry status.
const (
	statusPending    = "pending"
	statusInProgress = "in_progress"
	statusCompleted  = "completed"
)

type todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

type todoArgs struct {
	Todos []todo `json:"todos"`
}

// todoWrite is the data of the todo/write event: the whole new list.
type todoWrite struct {
	Todos []todo `json:"todos"`
}

func todoTool() pluginapi.Tool {
	return pluginapi.Typed(pluginapi.ToolSpec{
		Name:        toolName,
		Description: strings.TrimSpace(description),
		Schema:      schema,
		Kind:        pluginapi.KindThink,
		Title:       "Update todo list",
	}, writeTodos)
}

// writeTodos checks the list, then the caller, and proposes the list as a
// todo/write event. The schema (types, required keys, the status enum, no
// unknown keys) was checked by Typed before it runs.
func writeTodos(_ context.Context, call *pluginapi.Call, args todoArgs) (pluginapi.Result, error) {
	todos, err := normalize(args.Todos)
	if err != nil {
		return pluginapi.ErrorResult("%v", err), nil
	}
	if call.Caller != pluginapi.CallerAgent || call.SessionID == "" {
		return pluginapi.ErrorResult("todo_write requires an owning agent session"), nil
	}
	data, err := encodeJSON(todoWrite{Todos: todos})
	if err != nil {
		return pluginapi.Result{}, fmt.Errorf("encode todo/write: %w", err)
	}
	var pending, inProgress, completed int
	for _, t := range todos {
		switch t.Status {
		case statusPending:
			pending++
		case statusInProgress:
			inProgress++
		case statusCompleted:
			completed++
		}
	}
	return pluginapi.Result{
		Content: fmt.Sprintf("Updated todo list: %d pending, %d in progress, %d completed.", pending, inProgress, completed),
		Events:  []pluginapi.Event{{Type: eventType, Data: data}},
	}, nil
}

// normalize trims every item's content and enforces what makes a plan
// coherent: no blank task, no repeated task, at most one in progress.
func normalize(in []todo) ([]todo, error) {
	out := make([]todo, 0, len(in))
	seen := make(map[string]bool, len(in))
	inProgress := 0
	for _, item := range in {
		content := strings.TrimSpace(item.Content)
		if content == "" {
			return nil, errors.New("invalid todo: `content` must be a non-empty string")
		}
		if seen[content] {
			return nil, fmt.Errorf("invalid todos: duplicate content %s", quoteJSON(content))
		}
		seen[content] = true
		if item.Status == statusInProgress {
			inProgress++
		}
		out = append(out, todo{Content: content, Status: item.Status})
	}
	if inProgress > 1 {
		return nil, fmt.Errorf("invalid todos: at most one task may be in_progress, got %d", inProgress)
	}
	return out, nil
}

// quoteJSON quotes s as JSON does (as JavaScript's JSON.stringify).
func quoteJSON(s string) string {
	b, _ := encodeJSON(s) // a string always encodes
	return string(b)
}

// encodeJSON encodes v without Go's HTML escapes, so the log reads as the
// model wrote it.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
