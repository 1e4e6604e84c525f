// Command harness is an agent host: it owns the event-sourced session log and
// the agent loop, and drives model providers and tools.
//
// main is the only code that touches os.Stdin, os.Stdout, os.Exit and
// signals; everything else is wired in run with its streams passed in.
//
// # Signals
//
// Ctrl-C (SIGINT), SIGTERM and SIGHUP (the terminal closed) all end the
// command the same way: the running turn is cancelled and logged as such
// (turn/end, reason cancelled, fsynced), the sessions are closed, the
// plugins are stopped and their process groups killed, and harness exits —
// with 128+signal (130, 143, 129) when the command did not complete, 0
// when it did (`harness acp` exits 0 after closing its sessions, as on
// stdin EOF). A second signal exits at once with 128+signal, and so does
// the command if the clean-up after SIGTERM or SIGHUP takes longer than
// signalGrace. SIGPIPE on a closed stdout or stderr does not kill harness:
// the write fails and the clean-up goes on.
//
// # Trust boundary
//
// The very first thing main does is hand its arguments to keeper.Main:
// the process may be harness run again as the keeper of a plugin,
// harness-llm or a stdio MCP server (host/keeper), which then does
// nothing else. Otherwise, on Linux,
// main first makes the process non-dumpable (PR_SET_DUMPABLE 0):
// /proc/<harness pid>/environ, mem and fd become readable by root only, so
// a command run as the same user (by the model, through bash) cannot read
// the API keys harness was started with. This also keeps same-user
// debuggers from attaching to harness and turns its core dumps off. The
// processes harness starts get none of its environment but an allow-list
// (see pluginhost.PluginEnv and --plugin-env).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/harness-dev/harness/host/keeper"
)

// signalGrace bounds the clean-up after SIGTERM or SIGHUP, which nobody
// can follow with a second signal from the keyboard.
const signalGrace = 15 * time.Second

func main() {
	// harness run again as a plugin's, harness-llm's or a stdio MCP
	// server's keeper (host/keeper):
	// nothing else of harness runs in that process.
	if code, ok := keeper.Main(os.Args); ok {
		os.Exit(code)
	}
	if err := hideProcess(); err != nil {
		fmt.Fprintf(os.Stderr, "harness: warning: cannot make the process non-dumpable (prctl PR_SET_DUMPABLE): %v; commands run as your user may read harness's environment\n", err)
	}
	// A broken stdout (the editor or the pager went away) fails the write
	// instead of killing the process in the middle of its clean-up. Not
	// signal.Ignore: an ignored signal stays ignored in every child.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)

	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	first := make(chan syscall.Signal, 1)
	go func() {
		// The first signal cancels the turn, which then ends cleanly and is
		// logged as cancelled; a second one exits at once.
		s := (<-sigs).(syscall.Signal)
		first <- s
		cancel()
		var grace <-chan time.Time
		if s != syscall.SIGINT {
			grace = time.After(signalGrace)
		}
		select {
		case s2 := <-sigs:
			os.Exit(128 + int(s2.(syscall.Signal)))
		case <-grace:
			fmt.Fprintf(os.Stderr, "harness: still cleaning up %s after %s; exiting now\n", signalGrace, s)
			os.Exit(128 + int(s))
		}
	}()
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.LookupEnv)
	cancel()
	select {
	case s := <-first:
		if code != exitOK {
			code = 128 + int(s)
		}
	default:
	}
	os.Exit(code)
}
