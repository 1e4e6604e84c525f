package main

import (
	"bytes"
	"context"
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
	fs := newFlagSet("sessions", std.err, "harness sessions [flags]")
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
// one, so that sessions move between stores (files, --store).
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
	fmt.Fprintf(std.err, "exported session %s to %s\n", id, path)
	return exitOK, nil
}
