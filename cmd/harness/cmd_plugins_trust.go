package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/pluginlock"
)

// maxPluginSize bounds the binary `harness plugins trust` copies.
const maxPluginSize = 1 << 30

// cmdPluginsTrust shows what the plugin file NAME of the plugin dirs asks
// for beyond the default confinement — learnt from the binary itself,
// started confined to the default — and records that the user trusts
// these bytes (their sha256) with it, in the dir's lock file. A binary
// that changes is not trusted until this runs again.
func cmdPluginsTrust(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("plugins trust", std.err, "harness plugins trust [flags] NAME\n\n"+
		"Shows what the plugin file NAME of the plugin dirs asks for beyond the default\n"+
		"confinement (network, writes, reads, exec) and records in DIR.lock that you trust\n"+
		"this binary (its sha256) with it. A changed binary must be trusted again")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	if fs.NArg() != 1 {
		return exitUsage, fmt.Errorf("harness plugins trust takes one plugin file name (see harness plugins): %w", errUsage)
	}
	name := fs.Arg(0)
	if name == "" || name != filepath.Base(name) || pluginlock.Skip(name) {
		return exitUsage, fmt.Errorf("%q is not a plugin file name (see harness plugins): %w", name, errUsage)
	}
	dirs, err := c.pluginDirs()
	if err != nil {
		return exitFailed, err
	}
	dir, err := findPlugin(dirs, name)
	if err != nil {
		return exitFailed, err
	}
	// The bytes shown and trusted are the bytes hashed: a private copy.
	tmp, err := os.MkdirTemp("", "harness-trust-")
	if err != nil {
		return exitFailed, fmt.Errorf("trust %s: %w", name, err)
	}
	defer os.RemoveAll(tmp)
	copyPath := filepath.Join(tmp, name)
	sum, err := copyHashed(filepath.Join(dir, name), copyPath)
	if err != nil {
		return exitFailed, fmt.Errorf("trust %s: %w", name, err)
	}
	d, err := confine.DescribeConfined(ctx, copyPath)
	if err != nil {
		return exitFailed, fmt.Errorf("trust %s: %w", name, err)
	}
	fmt.Fprintf(std.out, "plugin %s (%s %s, sha256 %s…) in %s asks for: %s\n", name, d.Name, d.Version, sum[:12], dir, d.Capabilities)
	if err := pluginlock.SetTrust(dir, name, pluginlock.Trust{SHA256: sum, Capabilities: confine.CapsToTrust(d.Capabilities)}); err != nil {
		return exitFailed, err
	}
	lock, _ := pluginlock.Path(dir)
	fmt.Fprintf(std.out, "trusted: recorded in %s; a changed binary must be trusted again\n", lock)
	return exitOK, nil
}

// findPlugin returns the first plugin dir holding the file name.
func findPlugin(dirs []string, name string) (string, error) {
	for _, dir := range dirs {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err == nil && fi.Mode().IsRegular() {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no plugin file %s in %v: name a file of the plugin dirs (see harness plugins)", name, dirs)
}

// copyHashed copies src to dst (0700) and returns the sha256 of the
// bytes copied.
func copyHashed(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(in, maxPluginSize+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > maxPluginSize {
		err = errors.New("larger than 1 GiB")
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
