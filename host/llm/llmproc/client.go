package llmproc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// Binary is the name of the process's executable.
const Binary = "harness-llm"

// EnvBinary overrides where the host looks for harness-llm (a path to
// the binary), for tests and unusual installs.
const EnvBinary = "HARNESS_LLM_BIN"

// DefaultIdle is how long the process stays up with no stream in flight.
const DefaultIdle = 5 * time.Minute

// startTimeout bounds the process's start and handshake.
const startTimeout = 20 * time.Second

// Find returns the harness-llm binary to run: $HARNESS_LLM_BIN (looked up
// with getenv) if set, else harness-llm next to the running executable.
// Its error is one line: what is missing, where it was looked for, and
// how to build it.
func Find(getenv func(string) string) (string, error) {
	path := getenv(EnvBinary)
	where := "$" + EnvBinary
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("find %s: %w", Binary, err)
		}
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		path, where = filepath.Join(filepath.Dir(exe), Binary), "next to "+exe
	}
	st, err := os.Stat(path)
	if err != nil || st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("the anthropic and openai-responses providers run in %s, which is missing: looked for %s (%s); build it with: go build -o bin/ ./cmd/...", Binary, path, where)
	}
	return path, nil
}

// Options configure a [Proc].
type Options struct {
	// Path is the harness-llm binary (see [Find]).
	Path string
	// Idle stops the process after that long with no stream in flight;
	// 0 means DefaultIdle, negative never.
	Idle time.Duration
	// Logger receives the process's log lines (its stderr) and start and
	// stop events. Default: discard.
	Logger hclog.Logger
	// Supervisor runs the process under a supervisor that kills what it
	// left when it ends and everything when the host dies (engine passes
	// host/keeper's; see pluginhost.StartSupervised). Default: none.
	Supervisor pluginhost.Supervisor
}

// Proc is the harness-llm process, as the host sees it: started on the
// first Stream (concurrent first calls start it once), shared by every
// [Provider] made from it, stopped after Options.Idle with no stream in
// flight, started again by the next Stream after a stop or a crash. It is
// safe for concurrent use.
type Proc struct {
	path string
	idle time.Duration
	log  hclog.Logger
	sup  pluginhost.Supervisor

	mu       sync.Mutex
	cur      *child
	inFlight int
	timer    *time.Timer
	closed   bool
	starts   int
}

// child is one running process.
type child struct {
	pc   *plugin.Client
	run  procRunner
	conn *grpc.ClientConn
	tail *pluginhost.LineTail
}

func (c *child) dead() bool {
	select {
	case <-c.run.Exited():
		return true
	default:
		return c.pc.Exited()
	}
}

// stop ends the process: stdin closed first (it exits 0 on EOF, quietly),
// SIGKILL to its group if it is still there after stopGrace.
func (c *child) stop() {
	c.run.closeStdin()
	select {
	case <-c.run.Exited():
	case <-time.After(stopGrace):
	}
	_ = c.run.Kill(context.Background())
	c.pc.Kill()
}

// stopGrace is how long stop waits for the process to exit by itself.
const stopGrace = time.Second

// New returns a Proc that runs opts.Path; it starts nothing.
func New(opts Options) *Proc {
	p := &Proc{path: opts.Path, idle: opts.Idle, log: opts.Logger, sup: opts.Supervisor}
	if p.idle == 0 {
		p.idle = DefaultIdle
	}
	if p.log == nil {
		p.log = hclog.NewNullLogger()
	}
	return p
}

// Provider returns the provider cfg names, served by the process.
func (p *Proc) Provider(cfg Config) *Provider { return &Provider{proc: p, cfg: cfg} }

// PID returns the running process's pid, or 0.
func (p *Proc) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil || p.cur.dead() {
		return 0
	}
	return p.cur.run.PID()
}

// Close stops the process; a Stream after Close fails.
func (p *Proc) Close() error {
	p.mu.Lock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
	}
	c := p.cur
	p.cur = nil
	p.mu.Unlock()
	if c != nil {
		c.stop()
	}
	return nil
}

// acquire returns the running process, starting it if needed, and counts
// a stream in flight; release undoes the count.
func (p *Proc) acquire(ctx context.Context) (*child, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("the SDK provider process is closed")
	}
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if p.cur != nil && p.cur.dead() {
		p.log.Named(Binary).Warn("exited; starting it again", "state", p.cur.run.ExitState())
		p.cur.stop()
		p.cur = nil
	}
	if p.cur == nil {
		c, err := p.start(ctx)
		if err != nil {
			p.armLocked()
			return nil, err
		}
		p.cur = c
		p.starts++
	}
	p.inFlight++
	return p.cur, nil
}

func (p *Proc) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inFlight--
	p.armLocked()
}

// armLocked starts the idle timer when nothing is in flight.
func (p *Proc) armLocked() {
	if p.inFlight > 0 || p.idle < 0 || p.cur == nil || p.closed {
		return
	}
	c := p.cur
	p.timer = time.AfterFunc(p.idle, func() {
		p.mu.Lock()
		if p.cur != c || p.inFlight > 0 {
			p.mu.Unlock()
			return
		}
		p.cur = nil
		p.mu.Unlock()
		p.log.Named(Binary).Debug("idle; stopping it", "idle", p.idle)
		c.stop()
	})
}

// start launches the process and connects to it.
func (p *Proc) start(ctx context.Context) (*child, error) {
	begun := time.Now()
	tail := pluginhost.NewLineTail(tailLines)
	r := newProcRunner(p.path)
	r.SetSupervisor(p.sup)
	env := childEnv(os.Environ())
	env = append(env, "HARNESS_LLM_LOG_LEVEL="+levelName(p.log.GetLevel()))
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: handshake(),
		Plugins:         plugin.PluginSet{pluginName: &grpcPlugin{}},
		RunnerFunc: func(_ hclog.Logger, spec *exec.Cmd, socketDir string) (runner.Runner, error) {
			// os.MkdirTemp made socketDir under the umask (0500 under
			// 0277: no socket can be made in it); it is ours alone.
			if err := os.Chmod(socketDir, 0o700); err != nil {
				return nil, fmt.Errorf("chmod socket folder: %w", err)
			}
			r.SetEnv(append(env, spec.Env...))
			return r, nil
		},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		// The socket is made under the umask too; with a group, go-plugin
		// makes it 0660 after listening (as pluginhost.Launch does).
		UnixSocketConfig: socketConfig(),
		Logger:           p.log, // go-plugin names it after the runner: harness-llm
		Stderr:           tail,
		StartTimeout:     startTimeout,
		SkipHostEnv:      true,
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(maxMessageBytes), grpc.MaxCallSendMsgSize(maxMessageBytes))},
	})
	type result struct {
		c   *child
		err error
	}
	done := make(chan result, 1)
	go func() {
		proto, err := pc.Client()
		if err != nil {
			done <- result{err: err}
			return
		}
		raw, err := proto.Dispense(pluginName)
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{c: &child{pc: pc, run: r, conn: raw.(*grpc.ClientConn), tail: tail}}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			_ = r.Kill(context.Background())
			pc.Kill()
			msg := strings.TrimSpace(res.err.Error())
			if t := tailString(tail); t != "" {
				msg += "; its stderr: " + t
			}
			return nil, &llm.Error{Kind: llm.ErrTransport, Provider: Binary, Message: "start " + p.path + ": " + msg}
		}
		p.log.Named(Binary).Debug("started", "pid", r.PID(), "took", time.Since(begun))
		return res.c, nil
	case <-ctx.Done():
		_ = r.Kill(context.Background())
		pc.Kill()
		<-done
		return nil, ctx.Err()
	}
}

// childEnv is the process's environment: what the host's tool plugins
// get (PATH, HOME, locale, TLS roots, …; no API key, token or other
// secret) plus the proxy variables as they are, since the process talks
// to the network.
func childEnv(environ []string) []string {
	env, _ := pluginhost.PluginEnv(environ, []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
		"http_proxy", "https_proxy", "no_proxy", "all_proxy"})
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(name, "_API_KEY") || strings.HasPrefix(name, "HARNESS_") || pluginhost.SecretName(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func levelName(l hclog.Level) string {
	if l == hclog.NoLevel || l == hclog.Off {
		return "info"
	}
	return strings.ToLower(l.String())
}

// Provider streams answers from one SDK provider through the process. It
// is safe for concurrent use.
type Provider struct {
	proc *Proc
	cfg  Config
}

// Stream sends req to the process and yields its chunks; see the package
// doc for the contract. It never retries: the provider in the process
// already has.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		body, err := encodeRequest(&wireRequest{Config: p.cfg, Request: req})
		if err != nil {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrBadRequest, Provider: p.cfg.Provider, Message: err.Error(), Err: err})
			return
		}
		c, err := p.proc.acquire(ctx)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		defer p.proc.release()
		// The call ends when ctx does, but carries no deadline: the
		// process never ends it first, so a deadline reads as ctx's.
		sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		defer context.AfterFunc(ctx, cancel)()
		st, err := c.conn.NewStream(sctx, &serviceDesc.Streams[0], fullMethod)
		if err == nil {
			err = st.SendMsg(wrapperspb.Bytes(body))
		}
		if err == nil {
			err = st.CloseSend()
		}
		if err != nil {
			yield(llm.Chunk{}, p.transportError(ctx, c, err))
			return
		}
		for {
			in := new(wrapperspb.BytesValue)
			if err := st.RecvMsg(in); err != nil {
				if err == io.EOF {
					if ctx.Err() != nil {
						yield(llm.Chunk{}, ctx.Err())
					}
					return // the provider ended the stream: Finish came, or ctx
				}
				yield(llm.Chunk{}, p.transportError(ctx, c, err))
				return
			}
			chunk, streamErr, err := decodeMessage(in.GetValue())
			switch {
			case err != nil:
				yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrMalformed, Provider: p.cfg.Provider, Message: "from " + Binary + ": " + err.Error(), Err: err})
				return
			case streamErr != nil:
				yield(llm.Chunk{}, streamErr)
				return
			}
			if !yield(chunk, nil) {
				return
			}
		}
	}
}

// transportError explains a broken stream: ctx's error if it ended, else
// an ErrTransport naming how the process ended and its last stderr lines.
func (p *Provider) transportError(ctx context.Context, c *child, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msg := err.Error()
	if st, ok := status.FromError(err); ok {
		if st.Code() == codes.Canceled && ctx.Err() != nil {
			return ctx.Err()
		}
		msg = st.Message()
	}
	select {
	case <-c.run.Exited():
	case <-time.After(500 * time.Millisecond):
	}
	if c.dead() {
		msg = fmt.Sprintf("%s died mid-stream (%s)", Binary, cmp.Or(c.run.ExitState(), "exited"))
		time.Sleep(50 * time.Millisecond) // let go-plugin read its last stderr
		if t := tailString(c.tail); t != "" {
			msg += "; its last stderr: " + t
		}
		msg += "; the next request starts it again"
	} else {
		msg = "stream from " + Binary + " broke: " + msg
	}
	return &llm.Error{Kind: llm.ErrTransport, Provider: p.cfg.Provider, Message: msg, Err: err}
}

// socketConfig gives harness-llm's socket the user's own group (none
// where there are no gids: Windows).
func socketConfig() *plugin.UnixSocketConfig {
	if gid := os.Getgid(); gid >= 0 {
		return &plugin.UnixSocketConfig{Group: strconv.Itoa(gid)}
	}
	return nil
}
