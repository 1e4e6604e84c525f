//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Environment of BenchmarkACPPeer.
const (
	// peerEnv names the peer agent's command line (split on spaces), e.g.
	// the codex-acp binary npm installs.
	peerEnv = "HARNESS_BENCH_PEER"
	// peerAuthEnv, when set, is the authMethods id the peer is sent in an
	// `authenticate` request before session/new (codex-acp refuses
	// session/new without one: "openai-api-key" with OPENAI_API_KEY set).
	peerAuthEnv = "HARNESS_BENCH_PEER_AUTH"
)

// startFigures is one start of an ACP agent: spawn → initialize answered,
// spawn → session/new answered, and the RSS of its whole process tree
// right after session/new.
type startFigures struct {
	initialize, sessionNew time.Duration
	rssKB, procs           int
}

// measureStart starts cmd as an editor starts an agent and measures it:
// initialize, authenticate with method auth when not empty, session/new
// in cwd. The process is stopped afterwards (not counted).
func measureStart(b *testing.B, cmd *exec.Cmd, auth, cwd string) startFigures {
	b.Helper()
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		// As an editor closes an agent: stdin closed (harness saves its
		// plugin hash index then), killed if it lingers.
		in.Close()
		t := time.AfterFunc(2*time.Second, func() { cmd.Process.Kill() })
		cmd.Wait()
		t.Stop()
	}()
	out := bufio.NewReaderSize(pipe, 1<<20)
	call := func(id int, method, params string) {
		if _, err := fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
			b.Fatalf("%s: %s: %v\nstderr:\n%s", cmd.Path, method, err, stderr)
		}
		prefix := fmt.Sprintf(`"id":%d`, id)
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				b.Fatalf("%s: %s: read: %v\nstderr:\n%s", cmd.Path, method, err, stderr)
			}
			if strings.Contains(line, prefix) && (strings.Contains(line, `"result"`) || strings.Contains(line, `"error"`)) {
				if strings.Contains(line, `"error"`) {
					b.Fatalf("%s: %s: %s", cmd.Path, method, line)
				}
				return
			}
		}
	}
	var f startFigures
	call(1, "initialize", `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}}`)
	f.initialize = time.Since(begin)
	if auth != "" {
		call(3, "authenticate", fmt.Sprintf(`{"methodId":%q}`, auth))
	}
	call(2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, cwd))
	f.sessionNew = time.Since(begin)
	f.rssKB, _, f.procs = treeRSS(cmd.Process.Pid)
	return f
}

// BenchmarkACPPeer measures the installed harness (as BenchmarkACPStart
// does: its plugins next to it, a warm state dir, the script provider)
// and a peer ACP agent side by side, alternating starts in the same run:
// spawn → initialize, spawn → session/new answered (after `authenticate`
// for a peer that wants it), and the RSS of each one's whole process tree
// once session/new is answered. It reports the medians and harness's
// ratio to the peer's. The peer runs with HOME and CODEX_HOME set to a
// state dir of its own, warmed by one start as harness's is. Without
// HARNESS_BENCH_PEER it skips. To compare with codex-acp 0.16.0:
//
//	npm install --prefix /tmp/peer @zed-industries/codex-acp@0.16.0
//	HARNESS_BENCH_PEER=/tmp/peer/node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp \
//	HARNESS_BENCH_PEER_AUTH=openai-api-key OPENAI_API_KEY=sk-unused \
//	go test -run '^$' -bench ACPPeer -benchtime 5x ./cmd/harness/
func BenchmarkACPPeer(b *testing.B) {
	peer := strings.Fields(os.Getenv(peerEnv))
	if len(peer) == 0 {
		b.Skipf("set %s to a peer ACP agent's command (and %s to its auth method, if it wants one) to measure it next to harness", peerEnv, peerAuthEnv)
	}
	auth := os.Getenv(peerAuthEnv)
	bin := installedHarness(b)
	state := benchState(b, bin)
	peerHome := b.TempDir()
	peerEnv := append(os.Environ(), "HOME="+peerHome, "CODEX_HOME="+peerHome)
	cwd := b.TempDir()
	harnessCmd := func() *exec.Cmd {
		cmd := exec.Command(bin, "acp", "--provider", "script", "--script", filepath.Join(state, "none.jsonl"))
		cmd.Env = installedEnv(state)
		return cmd
	}
	peerCmd := func() *exec.Cmd {
		cmd := exec.Command(peer[0], peer[1:]...)
		cmd.Env = peerEnv
		return cmd
	}
	measureStart(b, peerCmd(), auth, cwd) // warm the peer's state as benchState warms harness's
	var hs, ps []startFigures
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hs = append(hs, measureStart(b, harnessCmd(), "", cwd))
		ps = append(ps, measureStart(b, peerCmd(), auth, cwd))
	}
	b.StopTimer()
	h, p := medianFigures(hs), medianFigures(ps)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(h.initialize), "ms-initialize")
	b.ReportMetric(ms(h.sessionNew), "ms-session_new")
	b.ReportMetric(float64(h.rssKB)/1024, "MB-tree-rss")
	b.ReportMetric(ms(p.initialize), "ms-peer-initialize")
	b.ReportMetric(ms(p.sessionNew), "ms-peer-session_new")
	b.ReportMetric(float64(p.rssKB)/1024, "MB-peer-tree-rss")
	b.ReportMetric(float64(h.sessionNew)/float64(p.sessionNew), "ratio-session_new")
	b.ReportMetric(float64(h.rssKB)/float64(p.rssKB), "ratio-rss")
	b.Logf("medians of %d alternating starts: harness initialize %v, session/new %v, tree %.1f MB in %d processes; %s initialize %v, session/new %v, tree %.1f MB in %d processes",
		b.N, h.initialize, h.sessionNew, float64(h.rssKB)/1024, h.procs,
		filepath.Base(peer[0]), p.initialize, p.sessionNew, float64(p.rssKB)/1024, p.procs)
}

// medianFigures returns the median of each figure of fs on its own.
func medianFigures(fs []startFigures) startFigures {
	pick := func(get func(startFigures) int64) int64 {
		v := make([]int64, len(fs))
		for i, f := range fs {
			v[i] = get(f)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return startFigures{
		initialize: time.Duration(pick(func(f startFigures) int64 { return int64(f.initialize) })),
		sessionNew: time.Duration(pick(func(f startFigures) int64 { return int64(f.sessionNew) })),
		rssKB:      int(pick(func(f startFigures) int64 { return int64(f.rssKB) })),
		procs:      int(pick(func(f startFigures) int64 { return int64(f.procs) })),
	}
}
