package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/harness-dev/harness/pluginapi"
)

// The model-facing description and the wire schema of subagent.
var (
	//go:embed description.md
	description string
	//go:embed schema.json
	schema []byte
)

const toolName = "subagent"

type subagentArgs struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
}

func subagentTool() pluginapi.Tool {
	return pluginapi.Typed(pluginapi.ToolSpec{
		Name:            toolName,
		Description:     strings.TrimSpace(description),
		Schema:          schema,
		ConcurrencySafe: true,
		Kind:            pluginapi.KindOther,
		Title:           "Subagent: {description}",
	}, delegate)
}

// delegate asks the host for a child agent and returns its answer.
func delegate(ctx context.Context, call *pluginapi.Call, args subagentArgs) (pluginapi.Result, error) {
	if strings.TrimSpace(args.Prompt) == "" {
		return pluginapi.ErrorResult("invalid arguments: `prompt` must be a non-empty string"), nil
	}
	if call.Caller != pluginapi.CallerAgent || call.SessionID == "" {
		return pluginapi.ErrorResult("subagent tool requires a calling agent"), nil
	}
	label := strings.TrimSpace(args.Description)
	if label == "" {
		label = "subagent"
	}
	progress := func(text string) {
		if call.Progress != nil {
			call.Progress("[" + label + "] " + text)
		}
	}
	res, err := pluginapi.SpawnSubagent(ctx, call.Host, pluginapi.SubagentRequest{
		ParentSessionID: call.SessionID, ParentCallID: call.CallID,
		Description: label, Prompt: args.Prompt,
	}, progress)
	switch {
	case errors.Is(err, pluginapi.ErrUnimplemented):
		return pluginapi.ErrorResult("this host cannot run subagents"), nil
	case ctx.Err() != nil:
		return pluginapi.Result{}, ctx.Err()
	case err != nil:
		return pluginapi.Result{}, fmt.Errorf("run subagent: %w", err)
	}
	return pluginapi.Result{Content: res.Text, IsError: res.IsError}, nil
}
