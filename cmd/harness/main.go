// Command harness is an agent host: it owns the event-sourced session log and
// the agent loop, and drives model providers and tools.
//
// main is the only code that touches os.Stdin, os.Stdout, os.Exit and
// signals; everything else is wired in run with its streams passed in.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first Ctrl-C cancels the turn, which then ends cleanly and is
		// logged as cancelled; a second one exits at once.
		<-sigs
		cancel()
		<-sigs
		os.Exit(130)
	}()
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.LookupEnv)
	cancel()
	os.Exit(code)
}
