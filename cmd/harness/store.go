package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/session/natsstore"
)

// sessionStore opens the store --store names: nil for the state folder's
// files, else the NATS JetStream backend, and what to call it for
// people (the URL without credentials).
func (c *config) sessionStore(ctx context.Context) (session.Backend, string, error) {
	url := strings.TrimSpace(c.Store)
	if url == "" {
		return nil, "", nil
	}
	if !strings.Contains(url, "://") {
		// not echoed: a mistyped value may hold credentials
		return nil, "", fmt.Errorf("%s is not a NATS URL: give nats://host:4222 or tls://host:4222, or leave it empty for files", c.source("store"))
	}
	var opts []nats.Option
	if c.StoreCreds != "" {
		opts = append(opts, nats.UserCredentials(c.StoreCreds))
	}
	if c.StoreNkey != "" {
		o, err := nats.NkeyOptionFromSeed(c.StoreNkey)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", c.source("store-nkey"), err)
		}
		opts = append(opts, o)
	}
	if c.StoreCA != "" {
		opts = append(opts, nats.RootCAs(c.StoreCA))
	}
	b, err := natsstore.Connect(ctx, url, natsstore.Options{LeaseTTL: c.StoreLease}, opts...)
	if err != nil {
		return nil, "", fmt.Errorf("%w; check %s, or leave it empty to keep sessions in files", err, c.source("store"))
	}
	return b, b.Where(), nil
}

// logsRuntime is the runtime of a command that only reads or moves
// session logs (sessions, attach): the state folder and the store c
// names, no plugin, no model.
func logsRuntime(ctx context.Context, c *config, e env) (*engine.Runtime, error) {
	dir, err := c.stateDir(e)
	if err != nil {
		return nil, err
	}
	store, where, err := c.sessionStore(ctx)
	if err != nil {
		return nil, err
	}
	return engine.New(engine.Config{StateDir: dir, Sessions: store, SessionsWhere: where})
}
