package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// Defaults of Options.
const (
	DefaultStartTimeout = 60 * time.Second
	DefaultStartWait    = 2 * time.Second
	DefaultCallTimeout  = 10 * time.Minute
	DefaultBackoff      = time.Second
	DefaultMaxBackoff   = 30 * time.Second
	// DefaultRestartBudget restarts within DefaultRestartWindow are
	// allowed; the next failure leaves the server down for the session.
	DefaultRestartBudget = 5
	DefaultRestartWindow = time.Minute
)

// Options configure Start.
type Options struct {
	// Logger receives the servers' stderr and the warnings; nil discards.
	Logger hclog.Logger
	// Environ is the host's environment (os.Environ()); a stdio server gets
	// its allow-listed part (pluginhost.PluginEnv with PassEnv) and its
	// configured Env, nothing else.
	Environ []string
	PassEnv []string
	// Cwd is where stdio servers run: the session's folder.
	Cwd string
	// ClientName and ClientVersion are what the host tells the servers in
	// initialize.
	ClientName, ClientVersion string
	// StartTimeout bounds starting one server: launch, initialize and the
	// first tools/list (0: DefaultStartTimeout); a server's own
	// ServerConfig.StartTimeout replaces it.
	StartTimeout time.Duration
	// StartWait bounds how long Tools waits for servers still in their
	// first start, counted from Start (0: DefaultStartWait): a server up
	// by then is in the first step's tools, a slower one in the steps
	// after it is up.
	StartWait time.Duration
	// Backoff is the pause before a server that failed or died is started
	// again, doubled after each further failure up to MaxBackoff (0:
	// DefaultBackoff, DefaultMaxBackoff).
	Backoff, MaxBackoff time.Duration
	// RestartBudget is how many restarts RestartWindow may hold; the
	// next failure leaves the server down for the session (0:
	// DefaultRestartBudget, DefaultRestartWindow).
	RestartBudget int
	RestartWindow time.Duration
	// OnStatus is told of every change of a server's state and of each
	// configuration Start refused (nil: nobody). It is called from the
	// goroutine that saw the change, outside the set's locks, and must
	// not block.
	OnStatus func(Status)
	// CallTimeout bounds one tools/call (0: DefaultCallTimeout).
	CallTimeout time.Duration
	// Confine starts a stdio server that asks for a sandbox
	// (ServerConfig.Sandboxed) confined as it asks, in folder Cwd: it
	// returns the supervisor to start it with, or why it cannot be
	// confined here — then the server is not started, never run
	// unconfined. Nil: such a server is not started.
	Confine func(c ServerConfig, cwd string) (pluginhost.Supervisor, error)
	// Roots are the folders the servers are offered as roots until
	// Set.SetRoots (nil: Cwd).
	Roots []string
	// Elicit asks the user a server's question (elicitation/create, form
	// mode); ctx is the call's (CallOf names the session and the call).
	// Nil: every question is declined.
	Elicit func(ctx context.Context, req ElicitRequest) (ElicitResult, error)
	// Sample serves a server's sampling/createMessage once its entry
	// allows it (ServerConfig.Sampling); it asks the user each time. ctx
	// is the call's, as for Elicit. Nil: refused.
	Sample func(ctx context.Context, req SampleRequest) (SampleResult, error)
}

// ServerTool is one tool of an MCP server, as the server lists it; the
// loop is given it in the host's vocabulary (AsTool).
type ServerTool struct {
	// Spec.Name is mcp__<server>__<tool>.
	Spec llm.ToolSpec
	// Server names the server that serves it.
	Server event.MCPServer
	// Tool is the tool's name on its server (echo).
	Tool string
	// Title is the server's title for the tool, for people: the tool's
	// title, else its annotations' title; empty when it gave none.
	Title string
	// ReadOnly is the server's readOnlyHint annotation: a hint, not a
	// promise.
	ReadOnly bool
}

// AsTool is t in the host's tool vocabulary: an MCP tool needs
// permission; a tool its server annotated readOnlyHint is of kind read and
// concurrency-safe, one without is of no declared kind; its calls are
// titled "server: tool" (the server's title for the tool, when it gives
// one, in place of its name).
func (t ServerTool) AsTool() tool.Tool {
	srv := t.Server
	out := tool.Tool{Spec: t.Spec, NeedsPermission: true, ConcurrencySafe: t.ReadOnly, MCP: &srv}
	if t.ReadOnly {
		out.Kind = pluginapi.KindRead
	}
	name := t.Title
	if name == "" {
		name = t.Tool
	}
	out.Title = t.Server.Name + ": " + name
	return out
}

// Set is the MCP servers of one session. Its methods are safe for
// concurrent use.
type Set struct {
	opts    Options
	log     hclog.Logger
	servers []*server
	invalid []ServerInfo // the configurations Start refused, for Servers
	roots   *rootList
	watch   *watchers
	// statuses hands the servers' changes to Options.OnStatus
	statuses *statusQueue
}

// Start connects to servers in the background and returns at once; Tools
// waits for those still starting up to Options.StartWait. A server that
// fails to start is reported in one warning line and to OnStatus, and
// started again as one that died is.
func Start(servers []ServerConfig, opts Options) *Set {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opts.StartTimeout, DefaultStartTimeout)
	def(&opts.StartWait, DefaultStartWait)
	def(&opts.CallTimeout, DefaultCallTimeout)
	def(&opts.Backoff, DefaultBackoff)
	def(&opts.MaxBackoff, DefaultMaxBackoff)
	def(&opts.RestartWindow, DefaultRestartWindow)
	if opts.RestartBudget <= 0 {
		opts.RestartBudget = DefaultRestartBudget
	}
	if opts.ClientName == "" {
		opts.ClientName = "harness"
	}
	s := &Set{opts: opts, log: opts.Logger, watch: &watchers{}, statuses: newStatusQueue(opts.OnStatus)}
	if opts.Roots == nil {
		opts.Roots = []string{opts.Cwd}
	}
	s.roots = newRootList(opts.Roots)
	startBy := time.Now().Add(opts.StartWait)
	for _, c := range servers {
		if err := c.check(); err != nil {
			s.log.Warn("MCP server not started: " + err.Error() + "; fix its entry in " + sourceOf(c))
			info := c.Info()
			info.Status, info.Err = StatusInvalid, err.Error()+"; fix its entry in "+sourceOf(c)
			s.invalid = append(s.invalid, info)
			s.statuses.put(Status{Server: c.Name, Source: sourceOf(c), State: StatusInvalid, Err: "MCP server not started: " + info.Err, Notice: true})
			continue
		}
		sv := &server{cfg: c, opts: &s.opts, log: s.log.Named(c.Name), startBy: startBy, statuses: s.statuses,
			stderr: pluginhost.NewLineTail(10), secrets: secretsOf(c)}
		sv.caps = caps{roots: s.roots, watch: s.watch}
		s.servers = append(s.servers, sv)
		sv.firstStart()
	}
	return s
}

// Wait waits until every server's first start has ended (each is
// bounded by its start timeout), or ctx is done.
func (s *Set) Wait(ctx context.Context) error {
	if s == nil {
		return nil
	}
	for _, sv := range s.servers {
		if err := sv.waitFirst(ctx); err != nil {
			return err
		}
	}
	return nil
}

func sourceOf(c ServerConfig) string {
	if c.Source == "" {
		return "its configuration"
	}
	return c.Source
}

// Tools lists the tools of the set's servers for a step: those of a
// server that is up, refreshed when it said its list changed; the last
// list of one that died, whose restart this starts when its pause is
// over; the last list of one down for the session, each described as
// unavailable. It waits for servers in their first start until
// Options.StartWait after Start, no longer.
func (s *Set) Tools() []ServerTool {
	if s == nil {
		return nil
	}
	var out []ServerTool
	for _, sv := range s.servers {
		out = append(out, sv.listTools()...)
	}
	return out
}

// Has reports whether name is one of the set's tools.
func (s *Set) Has(name string) bool {
	return s != nil && s.lookup(name) != nil
}

func (s *Set) lookup(name string) *server {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return nil
	}
	for _, sv := range s.servers {
		if strings.HasPrefix(rest, sv.cfg.Name+"__") {
			return sv
		}
	}
	return nil
}

// Call calls the tool name (mcp__<server>__<tool>) with args, a JSON
// object, under a progress token: the server's progress goes to ctx's
// WithProgress function while the call runs. A failure is an error result
// naming the server and, for a stdio server, its last stderr lines.
func (s *Set) Call(ctx context.Context, name string, args json.RawMessage) tool.Result {
	sv := s.lookup(name)
	if sv == nil {
		return tool.Result{Content: fmt.Sprintf("no MCP tool %s in this session", name), IsError: true}
	}
	return sv.call(ctx, strings.TrimPrefix(name, "mcp__"+sv.cfg.Name+"__"), args)
}

// Close stops every server: stdio servers and everything they started
// are gone when it returns.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	var wg sync.WaitGroup
	for _, sv := range s.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sv.close()
		}()
	}
	wg.Wait()
	s.statuses.drain()
	return nil
}

// server is one configured server, supervised: its connection when up,
// its last tools, its state, and what restarts it (supervise.go).
type server struct {
	cfg     ServerConfig
	opts    *Options
	log     hclog.Logger
	stderr  *pluginhost.LineTail
	secrets []string
	prog    progress  // the running calls' progress tokens
	caps    caps      // roots, questions, prompts, instructions
	startBy time.Time // Tools waits for the first start until then
	// statuses queues what notify tells Options.OnStatus
	statuses *statusQueue

	mu       sync.Mutex
	cs       *mcp.ClientSession // nil when not up
	proc     *proc
	stopConn context.CancelFunc // ends the connection's context
	prov     event.MCPServer
	tools    []ServerTool // the last list, kept while the server is not up
	// stale is set by tools/list_changed of connection gen; atomics, so
	// that the SDK's notification never waits for mu (held while a list is
	// fetched, whose answer the same reader delivers).
	stale atomic.Bool
	gen   atomic.Int64 // bumped by each connection, so a stale notification is ignored

	state    string        // StatusStarting, StatusUp, StatusRestarting, StatusFailed
	why      string        // why it is not up, one line; "" when up or starting first
	first    chan struct{} // closed when the first start has ended
	starting chan struct{} // the start in flight, closed when it ends; nil when none
	abort    context.CancelFunc
	upSince  time.Time
	fails    int         // failures since it was last up for long
	nextTry  time.Time   // no restart before
	restarts []time.Time // restarts within the window
	gaveUp   bool        // the budget is spent: not started again in this session
	reported bool        // the current failure was told to OnStatus
	closed   bool
}

// conn is one connection to the server, as connect made it.
type conn struct {
	cs    *mcp.ClientSession
	proc  *proc
	stop  context.CancelFunc // ends the connection's context
	prov  event.MCPServer
	tools []ServerTool
}

// startTimeout is the server's own start timeout, else the set's.
func (sv *server) startTimeout() time.Duration {
	if sv.cfg.StartTimeout > 0 {
		return sv.cfg.StartTimeout
	}
	return sv.opts.StartTimeout
}

// connect starts or reaches the server and lists its tools, within its
// start timeout; abort (or ending parent) gives up. It holds no lock.
func (sv *server) connect(parent context.Context) (*conn, error) {
	limit := sv.startTimeout()
	// The connection lives in ctx (an SSE stream is the connect's request),
	// so ctx is not a timeout context: a timer cancels it when starting
	// takes too long, and close or a crash cancels it later.
	ctx, stop := context.WithCancel(context.WithoutCancel(parent))
	timer := time.AfterFunc(limit, stop)
	unhook := context.AfterFunc(parent, stop)
	defer unhook()
	ok := false
	defer func() {
		if !ok {
			stop()
		}
	}()
	timedOut := func(err error) error {
		if parent.Err() != nil {
			return errors.New("closed")
		}
		if !timer.Stop() {
			return fmt.Errorf("no answer within %s", limit)
		}
		return err
	}
	client := sv.newClient(sv.gen.Add(1))
	prov := event.MCPServer{Name: sv.cfg.Name}
	var transport mcp.Transport
	var p *proc
	switch sv.cfg.transport() {
	case Stdio:
		env, dropped := pluginhost.PluginEnv(sv.opts.Environ, sv.opts.PassEnv)
		if len(dropped) > 0 {
			sv.log.Warn("variables withheld from the MCP server: their values are URLs with a password; give them in the server's env if it needs them", "names", dropped)
		}
		for _, e := range sv.cfg.Env {
			env = append(env, e.Name+"="+e.Value)
		}
		sup := pluginhost.Supervisor(supervise)
		if sv.cfg.Sandboxed() {
			var err error
			if sv.opts.Confine == nil {
				err = errors.New("this host cannot confine MCP servers")
			} else {
				sup, err = sv.opts.Confine(sv.cfg, sv.opts.Cwd)
			}
			if err != nil {
				return nil, sv.failed("sandbox "+sv.cfg.Sandbox, err, "it asked for a sandbox and is never run without one: drop its sandbox key to run it with your rights")
			}
		}
		var err error
		p, err = startProc(append([]string{sv.cfg.Command}, sv.cfg.Args...), sv.opts.Cwd, env, sup, sv.stderrLine)
		if err != nil {
			return nil, sv.failed("start "+sv.cfg.Command, err, "check the command and that it is installed")
		}
		transport = &mcp.IOTransport{Reader: p.Stdout(), Writer: p.Stdin()}
		prov.Command, prov.PID = sv.cfg.Command, p.PID()
	case HTTP:
		transport = &mcp.StreamableClientTransport{Endpoint: sv.cfg.URL, HTTPClient: sv.httpClient(), MaxRetries: -1}
		prov.URL = sv.cfg.where()
	case SSE:
		transport = &mcp.SSEClientTransport{Endpoint: sv.cfg.URL, HTTPClient: sv.httpClient()}
		prov.URL = sv.cfg.where()
	}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		if p != nil {
			p.stop(0)
		}
		return nil, sv.failed("initialize", timedOut(err), "check that it is an MCP server and starts within "+limit.String()+" (its startTimeout in mcp.json, or --mcp-start-timeout)")
	}
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		prov.ServerName, prov.ServerVersion = r.ServerInfo.Name, r.ServerInfo.Version
	}
	tools, err := sv.fetchTools(ctx, cs, prov)
	if err != nil {
		_ = cs.Close()
		if p != nil {
			p.stop(0)
		}
		return nil, sv.failed("list tools", timedOut(err), "check the server")
	}
	if !timer.Stop() || parent.Err() != nil {
		_ = cs.Close()
		if p != nil {
			p.stop(0)
		}
		return nil, sv.failed("initialize", timedOut(nil), "check the server")
	}
	ok = true
	// prompts and instructions before the tools are offered (prompts.go)
	pctx, pcancel := context.WithTimeout(ctx, sv.startTimeout())
	sv.connected(pctx, cs)
	pcancel()
	return &conn{cs: cs, proc: p, stop: stop, prov: prov, tools: tools}, nil
}

// failed is the one line that says a server is not usable: its name,
// what failed and what to do; never a value of its env or headers.
func (sv *server) failed(what string, err error, todo string) error {
	msg := fmt.Sprintf("MCP server %s (from %s) not started: %s: %s; %s", sv.cfg.Name, sourceOf(sv.cfg), what, sv.redact(err.Error()), todo)
	if t := strings.Join(sv.stderr.Lines(), "\n"); t != "" {
		msg += "; its last stderr: " + strings.ReplaceAll(t, "\n", " | ")
	}
	return errors.New(msg)
}

// fetchTools lists the server's tools as the model will see them; a tool
// whose name or schema the host cannot offer is left out with a warning.
func (sv *server) fetchTools(ctx context.Context, cs *mcp.ClientSession, prov event.MCPServer) ([]ServerTool, error) {
	var out []ServerTool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		name := "mcp__" + sv.cfg.Name + "__" + t.Name
		if !validToolName(name) {
			sv.log.Warn(fmt.Sprintf("MCP server %s: tool %q skipped: %s does not match ^[a-zA-Z0-9_-]{1,64}$; shorten the server's name in %s", sv.cfg.Name, t.Name, name, sourceOf(sv.cfg)))
			continue
		}
		schema, err := json.Marshal(t.InputSchema)
		if err == nil {
			err = pluginapi.CheckSchema(schema)
		}
		if err != nil {
			sv.log.Warn(fmt.Sprintf("MCP server %s: tool %s skipped: its input schema: %v; the server must fix it", sv.cfg.Name, t.Name, err))
			continue
		}
		desc := t.Description
		if desc == "" && t.Annotations != nil {
			desc = t.Annotations.Title
		}
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		out = append(out, ServerTool{
			Spec:     llm.ToolSpec{Name: name, Description: desc, Parameters: schema},
			Server:   prov,
			Tool:     t.Name,
			Title:    title,
			ReadOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
		})
	}
	slices.SortFunc(out, func(a, b ServerTool) int { return strings.Compare(a.Spec.Name, b.Spec.Name) })
	return out, nil
}

// refreshTimeout bounds fetching a list again after tools/list_changed,
// which holds up the step.
const refreshTimeout = 10 * time.Second

// listTools returns the server's tools for a step: refreshed when the
// server said they changed; its last list while it is not up, whose
// restart it starts when due (kick); described as unavailable once it is
// down for the session. It waits for the first start until startBy.
func (sv *server) listTools() []ServerTool {
	sv.settle()
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.cs != nil && sv.stale.Swap(false) {
		ctx, cancel := context.WithTimeout(context.Background(), min(sv.startTimeout(), refreshTimeout))
		tools, err := sv.fetchTools(ctx, sv.cs, sv.prov)
		cancel()
		if err != nil {
			sv.log.Warn(fmt.Sprintf("MCP server %s: tools not refreshed after tools/list_changed: %s; the old list stays", sv.cfg.Name, sv.redact(err.Error())))
		} else {
			sv.tools = tools
			sv.log.Info("MCP server's tools refreshed", "tools", len(tools))
		}
	}
	out := slices.Clone(sv.tools)
	if sv.gaveUp {
		for i := range out {
			out[i].Spec.Description = sv.unavailable()
		}
	}
	return out
}

// settle starts the server again if it is due, then waits for its first
// start until startBy (the first step's bound), no later.
func (sv *server) settle() {
	sv.mu.Lock()
	sv.kickLocked(time.Now())
	first := sv.first
	sv.mu.Unlock()
	if d := time.Until(sv.startBy); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-first:
		case <-t.C:
		}
		t.Stop()
	}
}

// session returns the connection for a call: the server's when up, else
// after starting it again (waiting out its pause; one start per call).
// A server down for the session, or one whose start failed, is an
// error: one line saying why.
func (sv *server) session(ctx context.Context) (*mcp.ClientSession, error) {
	tried := false
	for {
		sv.mu.Lock()
		switch {
		case sv.closed:
			sv.mu.Unlock()
			return nil, fmt.Errorf("MCP server %s: the session's servers are closed", sv.cfg.Name)
		case sv.cs != nil:
			cs := sv.cs
			sv.mu.Unlock()
			return cs, nil
		case sv.gaveUp:
			msg := sv.unavailable()
			sv.mu.Unlock()
			return nil, errors.New(msg)
		case tried && sv.starting == nil:
			msg := sv.why
			sv.mu.Unlock()
			return nil, errors.New(msg)
		}
		ch := sv.kickLocked(time.Now())
		pause := time.Until(sv.nextTry)
		sv.mu.Unlock()
		if ch == nil && pause <= 0 {
			continue // the budget was spent, or a start just ended
		}
		var wait <-chan time.Time
		if ch == nil {
			t := time.NewTimer(pause)
			defer t.Stop()
			wait = t.C
		} else {
			tried = true
		}
		select {
		case <-ch:
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// down drops the connection cs after a call found it dead, so that the
// next use starts the server again.
func (sv *server) down(cs *mcp.ClientSession) {
	sv.lost(cs, "it failed during a call")
}

func (sv *server) call(ctx context.Context, name string, args json.RawMessage) tool.Result {
	cs, err := sv.session(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{Content: "cancelled", IsError: true}
		}
		return tool.Result{Content: err.Error(), IsError: true}
	}
	var arguments map[string]any
	if len(args) > 0 {
		if err := json.Unmarshal(args, &arguments); err != nil {
			return tool.Result{Content: "arguments are not a JSON object: " + err.Error(), IsError: true}
		}
	}
	cctx, cancel := context.WithTimeout(ctx, sv.opts.CallTimeout)
	defer cancel()
	defer sv.caps.during(ctx)()
	params := &mcp.CallToolParams{Name: name, Arguments: arguments}
	// Every call carries a progress token; the server's notifications
	// about it are the call's live output (WithProgress), until it returns.
	live := progressOf(ctx)
	if live == nil {
		live = func(string) {}
	}
	token, endProgress := sv.prog.start(cs, live)
	defer endProgress()
	params.SetProgressToken(token)
	res, err := cs.CallTool(cctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{Content: "cancelled", IsError: true}
		}
		msg := sv.redact(err.Error())
		dead := cctx.Err() != nil || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || sv.exited()
		if dead {
			sv.down(cs)
			msg = fmt.Sprintf("MCP server %s failed during the call: %s; it is started again on next use", sv.cfg.Name, msg)
			if cctx.Err() != nil {
				msg = fmt.Sprintf("MCP server %s did not answer within %s; it is started again on next use", sv.cfg.Name, sv.opts.CallTimeout)
			}
		} else {
			msg = fmt.Sprintf("MCP server %s: %s", sv.cfg.Name, msg)
		}
		if t := strings.Join(sv.stderr.Lines(), "\n"); t != "" && dead {
			msg += "\nits last stderr lines:\n" + t
		}
		return tool.Result{Content: msg, IsError: true}
	}
	return tool.Result{Content: render(res), Blocks: blocks(res), IsError: res.IsError}
}

// exited reports whether the stdio server's process has exited, or its
// connection was found dead already.
func (sv *server) exited() bool {
	sv.mu.Lock()
	p, lost := sv.proc, sv.cs == nil
	sv.mu.Unlock()
	if p == nil {
		return lost // a stdio server's connection already lost (watch)
	}
	select {
	case <-p.Exited():
		return true
	case <-time.After(50 * time.Millisecond):
		return false
	}
}

func (sv *server) close() {
	sv.mu.Lock()
	sv.closed = true
	starting, abort := sv.starting, sv.abort
	cs, stop, p := sv.cs, sv.stopConn, sv.proc
	sv.cs, sv.proc = nil, nil
	sv.mu.Unlock()
	if starting != nil {
		abort()
		<-starting // a start that ends now is torn down (install)
	}
	if cs != nil {
		_ = cs.Close()
		stop()
	}
	if p != nil {
		p.stop(2 * time.Second)
	}
}

// stderrLine logs one line of the server's stderr, its secrets redacted.
func (sv *server) stderrLine(l string) {
	l = sv.redact(l)
	if len(l) > 2000 {
		l = l[:2000] + "…"
	}
	_, _ = sv.stderr.Write([]byte(l + "\n"))
	sv.log.Info("stderr", "line", l)
}

// redact replaces the server's configured env and header values in s.
func (sv *server) redact(s string) string {
	for _, v := range sv.secrets {
		s = strings.ReplaceAll(s, v, "[redacted]")
	}
	return s
}

// secretsOf lists the values of c's env and headers that could be told
// apart in text (four characters or more).
func secretsOf(c ServerConfig) []string {
	var out []string
	for _, list := range [][]EnvVar{c.Env, c.Headers} {
		for _, e := range list {
			if len(e.Value) >= 4 {
				out = append(out, e.Value)
			}
		}
	}
	// a URL's password and query may hold a token, and errors quote URLs
	if u, err := url.Parse(c.URL); err == nil && c.URL != "" {
		if pw, ok := u.User.Password(); ok && len(pw) >= 4 {
			out = append(out, pw)
		}
		for _, q := range []string{u.RawQuery, u.Fragment} {
			if len(q) >= 4 {
				out = append(out, q)
			}
		}
	}
	return out
}

func (sv *server) httpClient() *http.Client {
	if len(sv.cfg.Headers) == 0 {
		return nil
	}
	return &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: sv.cfg.Headers}}
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers []EnvVar
}

// RoundTrip implements http.RoundTripper.
func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for _, kv := range h.headers {
		r.Header.Set(kv.Name, kv.Value)
	}
	return h.base.RoundTrip(r)
}

// validToolName reports whether s matches ^[a-zA-Z0-9_-]{1,64}$, the tool
// name rule of the model providers.
func validToolName(s string) bool {
	return len(s) <= 64 && validServerName(s)
}
