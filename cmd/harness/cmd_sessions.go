package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/harness-dev/harness/host/atomicfile"

	"github.com/harness-dev/harness/host/pricing"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/shorten"
	"github.com/harness-dev/harness/termview"
)

func cmdSessions(ctx context.Context, args []string, std stdio, e env) (int, error) {
	if len(args) > 0 && (args[0] == "export" || args[0] == "import") {
		return cmdSessionsMove(ctx, args[0], args[1:], std, e)
	}
	if len(args) > 0 && args[0] == "fork" {
		return cmdSessionsFork(ctx, args[1:], std, e)
	}
	fs := newFlagSet("sessions", std.err, "harness sessions [flags] | harness sessions fork ID [--at SEQ]")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	rt, err := logsRuntime(ctx, c, e) // starts nothing: reads the logs only
	if err != nil {
		return exitFailed, err
	}
	list, err := rt.ListSessions()
	if err != nil {
		return exitFailed, err
	}
	if len(list) == 0 {
		fmt.Fprintf(std.err, "no sessions in %s yet: start one with harness run PROMPT, or try harness demo\n", rt.SessionsDir())
		return exitOK, nil
	}
	models, err := c.modelChoice().Resolve()
	if err != nil {
		return exitUsage, err
	}
	if err := termview.Sessions(std.out, list, func(s session.Summary) string { return termview.UsageTotal(pricing.Summary(s, models)) }); err != nil {
		return exitFailed, err
	}
	// A log that could not be read — refused because another user could
	// have written it, or damaged — is listed by id only; say why, one
	// line each.
	for _, s := range list {
		if s.Err != nil {
			fmt.Fprintf(std.err, "harness: %s\n", shorten.Headline(s.Err.Error()))
		}
	}
	return exitOK, nil
}

// cmdSessionsMove is harness sessions export ID FILE and import FILE: a
// session's log out of its store as a JSONL file, or into the store from
// one, so that sessions move between stores (files, --store); its images
// go in a folder beside the file (session.BlobsBeside).
func cmdSessionsMove(ctx context.Context, verb string, args []string, std stdio, e env) (int, error) {
	synopsis := map[string]string{"export": "harness sessions export [flags] ID FILE", "import": "harness sessions import [flags] FILE"}[verb]
	fs := newFlagSet("sessions "+verb, std.err, synopsis)
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	if want := map[string]int{"export": 2, "import": 1}[verb]; fs.NArg() != want {
		return exitUsage, fmt.Errorf("usage: %s: %w", synopsis, errUsage)
	}
	rt, err := logsRuntime(ctx, c, e)
	if err != nil {
		return exitFailed, err
	}
	if verb == "import" {
		id, err := rt.ImportSession(fs.Arg(0))
		if err != nil {
			return exitFailed, err
		}
		fmt.Fprintf(std.err, "imported session %s into %s\n", id, rt.SessionsDir())
		return exitOK, nil
	}
	id, path := fs.Arg(0), fs.Arg(1)
	var buf bytes.Buffer
	if err := rt.ExportSession(id, &buf); err != nil {
		return exitFailed, err
	}
	if err := atomicfile.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return exitFailed, fmt.Errorf("export session %s: %w", id, err)
	}
	blobs := session.BlobsBeside(path)
	n, missing, err := rt.ExportSessionBlobs(id, blobs)
	if err != nil {
		return exitFailed, err
	}
	fmt.Fprintf(std.err, "exported session %s to %s\n", id, path)
	if n > 0 {
		fmt.Fprintf(std.err, "and its %d image(s) to %s (import reads them from there)\n", n, blobs)
	}
	if missing > 0 {
		fmt.Fprintf(std.err, "%d image(s) the log names were not in the store: left out\n", missing)
	}
	return exitOK, nil
}

// cmdSessionsFork forks a session: harness sessions fork ID [--at SEQ].
// The fork's id goes to stdout, alone, for scripts; how to go on, to
// stderr.
func cmdSessionsFork(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("sessions fork", std.err, "harness sessions fork ID [--at SEQ]   (a new session that starts with ID's history up to SEQ)")
	c := bindConfig(fs, e)
	at := fs.Int64("at", 0, "the seq the fork branches off at: it holds the session's events before it; a turn must not be open there (default: all of it)")
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	id := fs.Arg(0)
	if fs.NArg() > 1 { // flags after the id
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return exitUsage, nil // fs reported it
		}
		if fs.NArg() > 0 {
			return exitUsage, fmt.Errorf("harness sessions fork takes one session id, got also %q: %w", fs.Args(), errUsage)
		}
	}
	if id == "" {
		return exitUsage, fmt.Errorf("harness sessions fork ID [--at SEQ]: which session? (ids: harness sessions): %w", errUsage)
	}
	if *at < 0 {
		return exitUsage, fmt.Errorf("--at %d: a seq is 0 or more: %w", *at, errUsage)
	}
	rt, err := logsRuntime(ctx, c, e) // starts nothing
	if err != nil {
		return exitFailed, err
	}
	s, err := rt.ForkSession(id, *at)
	if errors.Is(err, session.ErrNotFound) {
		return exitFailed, fmt.Errorf("no session %q in %s: list them with harness sessions", id, rt.SessionsDir())
	}
	if err != nil {
		return exitFailed, err
	}
	child, forkSeq := s.ID(), s.ForkSeq()
	if err := rt.CloseSession(s); err != nil {
		return exitFailed, err
	}
	fmt.Fprintln(std.out, child)
	fmt.Fprintf(std.err, "forked %s at seq %d into %s · continue it with: harness run --session %s PROMPT\n", id, forkSeq, child, child)
	return exitOK, nil
}
