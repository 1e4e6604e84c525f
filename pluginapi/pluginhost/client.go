package pluginhost

import (
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/internal/wire"

	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/harness-dev/harness/pluginapi/internal/convert"
	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
)

// Default timeouts of LaunchConfig.
const (
	DefaultStartTimeout = 10 * time.Second
	DefaultStopTimeout  = 3 * time.Second
)

// exitGrace is how long a failed call waits for the plugin process to be
// reaped, so that it can report an ExitError with the plugin's last words.
const exitGrace = 2 * time.Second

// LaunchConfig says how to start one plugin process.
type LaunchConfig struct {
	// Path is the binary to run (the toolbox passes a content-addressed
	// copy).
	Path string
	// Name is the plugin's name for logs and errors (e.g. its file name in
	// the plugin folder); default: the base name of Path.
	Name string
	// Logger receives the plugin's log lines, Named(Name), and go-plugin's
	// own; default: none.
	Logger hclog.Logger
	// Env is extra environment for the plugin (NAME=value), set after
	// everything else. Launch sets HARNESS_PLUGIN_LOG_LEVEL from Logger's
	// level and HARNESS_PLUGIN_EXIT_ON_STDIN_EOF=1 before it, so Env may
	// override them.
	Env []string
	// PassEnv names host variables the plugin gets besides those of
	// DefaultPassEnv, with the host's values (a name ending in "*" is a
	// prefix). The plugin never gets the host's whole environment: see
	// PluginEnv and the package doc.
	PassEnv []string
	// SkipHostEnv gives the plugin none of the host's variables, not even
	// DefaultPassEnv's: only go-plugin's, Launch's and Env.
	SkipHostEnv bool
	// StartTimeout bounds spawn to handshake; default DefaultStartTimeout.
	StartTimeout time.Duration
	// StopTimeout bounds Close's graceful stop before the process group is
	// killed; default DefaultStopTimeout.
	StopTimeout time.Duration
	// Supervisor, if set, runs the plugin under a supervisor process that
	// kills what the plugin left when it ends and everything when the host
	// dies (the host passes host/keeper's); see [StartSupervised]. The
	// Client's PID stays the plugin's own.
	Supervisor Supervisor
}

// Client is the host's handle on one running plugin process (or on a
// plugin served in this process, see StartInProcess). Its methods may be
// called concurrently.
type Client struct {
	name        string
	logger      hclog.Logger
	d           *dispensed
	pc          *plugin.Client
	run         *procRunner // nil in process
	tail        *LineTail
	exited      <-chan struct{}
	stopTimeout time.Duration
	stopInProc  func() // in process: stops the server

	closeOnce sync.Once
	closeErr  error
}

// newClient is the one place a Client is built: Launch, Attach and
// StartInProcess differ only in how they reach the plugin and stop it, which
// they set on the result (run, stopTimeout, stopInProc, d).
func newClient(name string, logger hclog.Logger, pc *plugin.Client, exited <-chan struct{}, tail *LineTail) *Client {
	if tail == nil {
		tail = &LineTail{}
	}
	return &Client{name: name, logger: logger, pc: pc, tail: tail, exited: exited}
}

// dispense returns the ToolProvider handle of a connected plugin.
func dispense(cp plugin.ClientProtocol) (*dispensed, error) {
	raw, err := cp.Dispense(wire.PluginSetName)
	if err != nil {
		return nil, err
	}
	return raw.(*dispensed), nil
}

// Launch starts the plugin binary cfg.Path, completes the go-plugin
// handshake and connects to its ToolProvider. Start failures are
// *StartErrors; if ctx ends first, Launch kills the process and returns
// ctx's error. The caller must Close the Client.
func Launch(ctx context.Context, cfg LaunchConfig) (*Client, error) {
	if cfg.Name == "" {
		cfg.Name = filepath.Base(cfg.Path)
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = DefaultStopTimeout
	}
	named := cfg.Logger.Named(cfg.Name)
	tail := &LineTail{}
	r := newProcRunner(cfg.Name, cfg.Path)
	r.SetSupervisor(cfg.Supervisor)
	var base []string
	if !cfg.SkipHostEnv {
		var dropped []string
		base, dropped = PluginEnv(os.Environ(), cfg.PassEnv)
		if len(dropped) > 0 {
			named.Warn("host variables withheld from the plugin: their value is a URL with a password; name them in the plugin env setting (--plugin-env) to pass them",
				"variables", strings.Join(dropped, ","))
		}
	}
	defaults := []string{
		pluginapi.EnvLogLevel + "=" + levelName(cfg.Logger.GetLevel()),
		pluginapi.EnvExitOnStdinEOF + "=1",
	}
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake(),
		VersionedPlugins: pluginSets(),
		RunnerFunc: func(_ hclog.Logger, spec *exec.Cmd, socketDir string) (runner.Runner, error) {
			// go-plugin made socketDir with os.MkdirTemp, which honours the
			// umask: under 0277 it is 0500 and the plugin cannot make its
			// socket in it. It is ours alone, so 0700 whatever the umask
			// (this undoes the 0770 go-plugin gives it for UnixSocketConfig).
			if err := os.Chmod(socketDir, 0o700); err != nil {
				return nil, fmt.Errorf("chmod plugin socket folder: %w", err)
			}
			// spec.Env is go-plugin's own variables only (SkipHostEnv):
			// the host's environment reaches the plugin through base alone.
			r.SetEnv(slices.Concat(base, spec.Env, defaults, cfg.Env))
			r.mu.Lock()
			r.tmpDir = socketDir
			r.mu.Unlock()
			return r, nil
		},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		// Sockets are made under the umask too (under 0277, 0500: no one
		// may connect); with a group, go-plugin makes every socket of
		// both sides (the plugin's, the brokers') 0660 after listening.
		// The user's own group, in a folder only the user may enter.
		UnixSocketConfig: socketConfig(),
		// go-plugin relays the plugin's stderr into Logger.Named(runner name).
		Logger:          cfg.Logger,
		Stderr:          tail,
		SyncStdout:      &logWriter{logger: named, level: hclog.Debug, stream: "stdout"},
		SyncStderr:      &logWriter{logger: named, level: hclog.Info, stream: "stderr", tail: tail},
		StartTimeout:    cfg.StartTimeout,
		SkipHostEnv:     true,
		GRPCDialOptions: wire.DialOptions(),
	})

	errc := make(chan error, 1)
	go func() {
		_, err := pc.Start()
		errc <- err
	}()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		_ = r.Kill(context.Background())
		<-errc
		r.cleanup()
		return nil, fmt.Errorf("launch plugin %s: %w", cfg.Name, ctx.Err())
	}
	if err != nil {
		serr := startError(cfg, r, tail, err)
		_ = r.Kill(context.Background())
		r.cleanup()
		return nil, serr
	}

	c := newClient(cfg.Name, named, pc, r.Exited(), tail)
	c.run = r
	c.stopTimeout = cfg.StopTimeout
	proto, err := pc.Client()
	if err == nil {
		c.d, err = dispense(proto)
	}
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("connect to plugin %s: %w", cfg.Name, err)
	}
	return c, nil
}

// socketConfig gives plugin sockets the user's own group (none where
// there are no gids: Windows).
func socketConfig() *plugin.UnixSocketConfig {
	if gid := os.Getgid(); gid >= 0 {
		return &plugin.UnixSocketConfig{Group: strconv.Itoa(gid)}
	}
	return nil
}

func levelName(l hclog.Level) string {
	if l == hclog.NoLevel || l == hclog.Off {
		return "info"
	}
	return strings.ToLower(l.String())
}

// cleanup removes the private socket folder, once the process is gone.
func (r *procRunner) cleanup() {
	r.mu.Lock()
	dir := r.tmpDir
	r.mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

// pluginVersionIn finds N in go-plugin's "… Plugin version: N, …".
func pluginVersionIn(msg string) (int, bool) {
	_, rest, ok := strings.Cut(msg, "Plugin version: ")
	if !ok {
		return 0, false
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	v, err := strconv.Atoi(rest[:end])
	return v, err == nil
}

// startError turns go-plugin's start error into a StartError.
func startError(cfg LaunchConfig, r *procRunner, tail *LineTail, err error) error {
	se := &StartError{Name: cfg.Name, Path: cfg.Path, Err: err}
	msg := err.Error()
	first, _, _ := strings.Cut(msg, "\n")
	settle := func() {
		// Let the process be reaped and its stderr read, for the message.
		select {
		case <-r.Exited():
		case <-time.After(exitGrace):
		}
		select {
		case <-r.drained:
		case <-time.After(200 * time.Millisecond):
		}
		se.Stderr = tail.Lines()
		se.Detail = r.ExitState()
	}
	switch {
	case errors.Is(err, syscall.ENOEXEC):
		se.Kind, se.Detail = StartNotPlugin, "the system cannot execute it (exec format error)"
	case strings.HasPrefix(first, "Unrecognized remote plugin message:"):
		line := strings.TrimSpace(strings.TrimPrefix(first, "Unrecognized remote plugin message:"))
		if line != "" {
			se.Kind = StartNotPlugin
			se.Stderr = tail.Lines()
			se.Detail = fmt.Sprintf("it printed %q instead of the plugin handshake", truncate(line, 80))
			break
		}
		settle()
		se.Kind = StartExited
		if foreignPlugin(se.Stderr) {
			se.Kind, se.Detail = StartNotPlugin, "it is a go-plugin plugin of another program (it wants another magic cookie)"
		}
	case strings.HasPrefix(first, "plugin exited before we could connect"):
		settle()
		se.Kind = StartExited
		if foreignPlugin(se.Stderr) {
			se.Kind, se.Detail = StartNotPlugin, "it is a go-plugin plugin of another program (it wants another magic cookie)"
		}
	case strings.HasPrefix(first, "incompatible API version with plugin"):
		se.Kind = StartVersion
		if v, ok := pluginVersionIn(first); ok {
			se.PluginVersions = []int{v}
		}
	case strings.HasPrefix(first, "incompatible core API version"):
		se.Kind, se.Detail = StartNotPlugin, "its go-plugin core protocol is incompatible"
	case strings.HasPrefix(first, "unsupported plugin protocol"):
		se.Kind, se.Detail = StartNotPlugin, "it speaks go-plugin net/rpc, not gRPC"
	case strings.HasPrefix(first, "timeout while waiting for plugin to start"):
		se.Kind, se.Detail = StartTimeout, cfg.StartTimeout.String()
		se.Stderr = tail.Lines()
	default:
		se.Kind = StartSpawn
		se.Stderr = tail.Lines()
	}
	return se
}

func foreignPlugin(stderr []string) bool {
	for _, l := range stderr {
		if strings.Contains(l, "This binary is a plugin. These are not meant to be executed directly") {
			return true
		}
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Describe asks the plugin what it serves.
func (c *Client) Describe(ctx context.Context) (pluginapi.Description, error) {
	r, err := c.d.tp.Describe(ctx, &pb.Describe_Request{})
	if err != nil {
		return pluginapi.Description{}, c.callError(ctx, "describe", err)
	}
	return convert.DescriptionFromProto(r), nil
}

// Configure tells the plugin the host's facts and, when req.Host is set,
// serves it HostServices over go-plugin's broker (a socket in the private
// folder). Call it once, before Execute.
func (c *Client) Configure(ctx context.Context, req pluginapi.ConfigureRequest) error {
	var id uint32
	if req.Host != nil {
		id = c.d.broker.NextId()
		host := &hostServer{h: req.Host}
		go c.d.broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
			s := wire.ServerFactory(c.logger)(opts)
			pb.RegisterHostServicesServer(s, host)
			return s
		})
	}
	stateDir := req.StateDir
	if stateDir != "" {
		abs, err := filepath.Abs(stateDir)
		if err != nil {
			return fmt.Errorf("configure: state dir: %w", err)
		}
		stateDir = abs
	}
	resp, err := c.d.tp.Configure(ctx, &pb.Configure_Request{
		HostVersion:          req.HostVersion,
		ProtocolMinor:        pluginapi.ProtocolMinor,
		LogLevel:             req.LogLevel,
		HostServicesBrokerId: id,
		StateDir:             stateDir,
	})
	if err != nil {
		return c.callError(ctx, "configure", err)
	}
	for _, w := range resp.GetWarnings() {
		c.logger.Warn("plugin configuration warning", "warning", w)
	}
	return nil
}

// Execute runs one call. progress, if non-nil, receives the call's live
// output, from the calling goroutine. A failure of the tool is a Result
// with IsError; the error is non-nil only when the plugin or the transport
// broke (an *ExitError if the process died, carrying its last stderr
// lines) or ctx ended (ctx's error).
func (c *Client) Execute(ctx context.Context, req pluginapi.CallRequest, progress pluginapi.Progress) (pluginapi.Result, error) {
	op := "execute " + req.Tool
	select {
	case <-c.exited:
		return pluginapi.Result{}, fmt.Errorf("%s: %w", op, c.exitError(nil))
	default:
	}
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.d.tp.Execute(callCtx, convert.CallToProto(req))
	if err != nil {
		return pluginapi.Result{}, c.callError(ctx, op, err)
	}
	for {
		ev, err := stream.Recv()
		if err == io.EOF {
			return pluginapi.Result{}, fmt.Errorf("%s: plugin %s ended the call without a result", op, c.name)
		}
		if err != nil {
			return pluginapi.Result{}, c.callError(ctx, op, err)
		}
		switch e := ev.GetEvent().(type) {
		case *pb.Execute_Event_Progress:
			if progress != nil {
				progress(e.Progress.GetText())
			}
		case *pb.Execute_Event_Result:
			return convert.ResultFromProto(e.Result), nil
		}
	}
}

// Preview asks the plugin what the call req would do (minor 2): title,
// locations, diffs. A plugin without Preview (older, or the tool has
// none) previews nothing: the zero Meta and no error.
func (c *Client) Preview(ctx context.Context, req pluginapi.CallRequest) (pluginapi.Meta, error) {
	r, err := c.d.tp.Preview(ctx, &pb.Preview_Request{Call: convert.CallToProto(req)})
	if status.Code(err) == codes.Unimplemented {
		return pluginapi.Meta{}, nil
	}
	if err != nil {
		return pluginapi.Meta{}, c.callError(ctx, "preview "+req.Tool, err)
	}
	return convert.MetaFromProto(r.GetMeta()), nil
}

// Cancel asks the plugin to cancel the running call callID; the call still
// returns its result. Unknown ids are ignored.
func (c *Client) Cancel(ctx context.Context, callID string) error {
	if _, err := c.d.tp.Cancel(ctx, &pb.Cancel_Request{CallId: callID}); err != nil {
		return c.callError(ctx, "cancel "+callID, err)
	}
	return nil
}

// SessionClosed tells the plugin that session sessionID ended, so that it
// releases what it holds for it (the bash plugin kills the session's
// background tasks); it returns when the plugin has done so. A plugin that
// predates the RPC (protocol minor 0) has nothing to release: that is not
// an error.
func (c *Client) SessionClosed(ctx context.Context, sessionID string) error {
	_, err := c.d.tp.SessionClosed(ctx, &pb.SessionClosed_Request{SessionId: sessionID})
	if status.Code(err) == codes.Unimplemented {
		return nil
	}
	if err != nil {
		return c.callError(ctx, "session closed "+sessionID, err)
	}
	return nil
}

// PID is the plugin's process id (0 for a plugin served in process).
func (c *Client) PID() int {
	if c.run == nil {
		return 0
	}
	return c.run.PID()
}

// Exited is closed when the plugin process is gone.
func (c *Client) Exited() <-chan struct{} { return c.exited }

// StderrTail returns the plugin's last stderr lines, oldest first, as it
// wrote them (JSON log lines included).
func (c *Client) StderrTail() []string { return c.tail.Lines() }

// Close stops the plugin: it asks it to shut down (go-plugin's Kill), waits
// at most StopTimeout, then SIGKILLs its process group. It also kills
// whatever the plugin left running in its group and removes the private
// socket folder. It is idempotent.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

func (c *Client) close() error {
	if c.stopInProc != nil {
		c.stopInProc()
		return nil
	}
	var err error
	done := make(chan struct{})
	go func() {
		c.pc.Kill()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(c.stopTimeout):
		c.logger.Warn("plugin did not stop in time; killing its process group", "timeout", c.stopTimeout)
		_ = c.run.Kill(context.Background())
		select {
		case <-done:
		case <-time.After(time.Second):
			err = fmt.Errorf("stop plugin %s: go-plugin did not finish after SIGKILL", c.name)
		}
	}
	// Whatever the plugin left behind in its group goes too.
	if kerr := c.run.Kill(context.Background()); kerr != nil && err == nil {
		err = fmt.Errorf("stop plugin %s: %w", c.name, kerr)
	}
	select {
	case <-c.exited:
	case <-time.After(time.Second):
		if err == nil {
			err = fmt.Errorf("stop plugin %s: process %d still there after SIGKILL", c.name, c.run.PID())
		}
	}
	c.run.closeReadEnds()
	c.run.cleanup()
	return err
}

// callError explains a failed RPC: ctx's error if ctx ended, an ExitError
// if the plugin died, else the gRPC error.
func (c *Client) callError(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	wait := time.Duration(0)
	if status.Code(err) == codes.Unavailable {
		wait = exitGrace
	}
	select {
	case <-c.exited:
		return fmt.Errorf("%s: %w", op, c.exitError(err))
	case <-time.After(wait):
	}
	if st, ok := status.FromError(err); ok {
		err = fmt.Errorf("%s (%s)", st.Message(), st.Code())
	}
	return fmt.Errorf("%s: plugin %s: %w", op, c.name, err)
}

// exitError describes the dead plugin, once its stderr is read.
func (c *Client) exitError(err error) *ExitError {
	e := &ExitError{Name: c.name, Err: err}
	if c.run != nil {
		select {
		case <-c.run.drained:
		case <-time.After(200 * time.Millisecond):
		}
		e.PID = c.run.PID()
		e.State = c.run.ExitState()
	}
	e.Stderr = c.tail.Lines()
	return e
}

// hostServer is the host side of HostServices: ReadState is answered by the
// host's HostServices, SpawnSubagent when it implements Subagents,
// RequestPermission when it implements Permissions; otherwise they answer
// Unimplemented.
type hostServer struct {
	pb.UnimplementedHostServicesServer
	h pluginapi.HostServices
}

func (s *hostServer) RequestPermission(ctx context.Context, req *pb.RequestPermission_Request) (*pb.RequestPermission_Response, error) {
	p, ok := s.h.(pluginapi.Permissions)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "request permission: "+pluginapi.ErrUnimplemented.Error())
	}
	res, err := p.RequestPermission(ctx, convert.PermissionRequestFromProto(req))
	if err != nil {
		return nil, wire.ToStatus(err)
	}
	return convert.PermissionResponseToProto(res), nil
}

func (s *hostServer) SpawnSubagent(req *pb.SpawnSubagent_Request, stream grpc.ServerStreamingServer[pb.SpawnSubagent_Event]) error {
	sa, ok := s.h.(pluginapi.Subagents)
	if !ok {
		return status.Error(codes.Unimplemented, "spawn subagent: "+pluginapi.ErrUnimplemented.Error())
	}
	var mu sync.Mutex // progress may come from several goroutines
	res, err := sa.SpawnSubagent(stream.Context(), convert.SubagentRequestFromProto(req), func(text string) {
		mu.Lock()
		defer mu.Unlock()
		stream.Send(&pb.SpawnSubagent_Event{Event: &pb.SpawnSubagent_Event_Progress{Progress: &pb.SpawnSubagent_Progress{Text: text}}})
	})
	if err != nil {
		return wire.ToStatus(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return stream.Send(&pb.SpawnSubagent_Event{Event: &pb.SpawnSubagent_Event_Final{Final: convert.SubagentResultToProto(res)}})
}

func (s *hostServer) ReadTextFile(ctx context.Context, req *pb.ReadTextFile_Request) (*pb.ReadTextFile_Response, error) {
	tf, ok := s.h.(pluginapi.TextFiles)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "read text file: "+pluginapi.ErrUnimplemented.Error())
	}
	res, err := tf.ReadTextFile(ctx, convert.ReadTextFileRequestFromProto(req))
	if err != nil {
		return nil, wire.ToStatus(err)
	}
	return convert.ReadTextFileToProto(res), nil
}

func (s *hostServer) WriteTextFile(ctx context.Context, req *pb.WriteTextFile_Request) (*pb.WriteTextFile_Response, error) {
	tf, ok := s.h.(pluginapi.TextFiles)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "write text file: "+pluginapi.ErrUnimplemented.Error())
	}
	res, err := tf.WriteTextFile(ctx, convert.WriteTextFileRequestFromProto(req))
	if err != nil {
		return nil, wire.ToStatus(err)
	}
	return convert.WriteTextFileToProto(res), nil
}

func (s *hostServer) ReadState(ctx context.Context, req *pb.ReadState_Request) (*pb.ReadState_Response, error) {
	st, err := s.h.ReadState(ctx, convert.ReadStateRequestFromProto(req))
	if err != nil {
		return nil, wire.ToStatus(err)
	}
	return convert.StateToProto(st), nil
}
