// Command testplugin is a harness plugin for pluginapi's tests: its tools
// misbehave on purpose (panic, exit mid-call, leave children behind).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/harness-dev/harness/pluginapi"
)

const anySchema = `{"type":"object","properties":{"text":{"type":"string"}},"additionalProperties":false}`

func tool(name string, run func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error)) pluginapi.Tool {
	return pluginapi.Tool{
		Spec: pluginapi.ToolSpec{Name: name, Description: "test tool " + name, Schema: json.RawMessage(anySchema)},
		Run: func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
			var args map[string]any
			if err := json.Unmarshal(call.Args, &args); err != nil {
				return pluginapi.ErrorResult("invalid arguments: %v", err), nil
			}
			for k := range args {
				if k != "text" {
					return pluginapi.ErrorResult("invalid arguments: unknown property %q", k), nil
				}
			}
			return run(ctx, call)
		},
	}
}

func main() {
	if os.Getenv("TESTPLUGIN_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	}
	// TESTPLUGIN_HOOKS_FILE: the hooks append what they saw to that file.
	hooks := os.Getenv("TESTPLUGIN_HOOKS_FILE")
	note := func(line string) {
		if hooks == "" {
			return
		}
		f, err := os.OpenFile(hooks, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			_, _ = f.WriteString(line + "\n")
			_ = f.Close()
		}
	}
	pluginapi.Serve(pluginapi.Plugin{
		Name:          "testplugin",
		Version:       "0.0.1",
		EventTypes:    []string{"test/event"},
		SessionClosed: func(_ context.Context, id string) { note("session closed " + id) },
		OnExit:        func() { note("exit") },
		Tools: []pluginapi.Tool{
			tool("echo", func(_ context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
				call.Progress("one")
				call.Progress("two")
				return pluginapi.Result{Content: string(call.Args), Events: []pluginapi.Event{{Type: "test/event", Data: json.RawMessage(`{"ok":true}`)}}}, nil
			}),
			tool("panic", func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				panic("boom")
			}),
			tool("fail", func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				return pluginapi.Result{}, errors.New("the disk is full")
			}),
			tool("exit", func(_ context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
				call.Logger.Error("disk on fire")
				os.Exit(3)
				return pluginapi.Result{}, nil
			}),
			tool("sleep", func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
				call.Progress("sleeping")
				select {
				case <-ctx.Done():
					return pluginapi.Result{Content: "cancelled"}, nil
				case <-time.After(30 * time.Second):
					return pluginapi.Result{Content: "slept"}, nil
				}
			}),
			tool("state", func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
				st, err := call.Host.ReadState(ctx, pluginapi.ReadStateRequest{SessionID: call.SessionID})
				if err != nil {
					return pluginapi.Result{}, err
				}
				b, err := json.Marshal(st)
				return pluginapi.Result{Content: string(b)}, err
			}),
			tool("spawn", func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				// A child that keeps the plugin's stdout and stderr open.
				cmd := exec.Command("sleep", "60")
				cmd.Stdout = os.NewFile(1, "stdout")
				cmd.Stderr = os.NewFile(2, "stderr")
				if err := cmd.Start(); err != nil {
					return pluginapi.Result{}, err
				}
				return pluginapi.Result{Content: strconv.Itoa(cmd.Process.Pid)}, nil
			}),
			tool("dirs", func(_ context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
				return pluginapi.Result{Content: call.StateDir + "|" + call.SessionDir()}, nil
			}),
			tool("badevent", func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				return pluginapi.Result{Content: "x", Events: []pluginapi.Event{{Type: "other/event", Data: json.RawMessage(`{}`)}}}, nil
			}),
		},
	})
}
