package pluginapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/harness-dev/harness/pluginapi/internal/convert"
	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
	"github.com/harness-dev/harness/pluginapi/internal/wire"
)

// toolServer is the plugin side of ToolProvider.
type toolServer struct {
	pb.UnimplementedToolProviderServer

	plugin   *Plugin
	tools    map[string]*Tool
	describe *pb.Describe_Response
	logger   hclog.Logger
	broker   *plugin.GRPCBroker // set by go-plugin before serving

	mu       sync.Mutex
	host     HostServices
	hostConn *grpc.ClientConn
	stateDir string
	calls    map[string]*inflight

	exitOnce sync.Once
}

type inflight struct{ cancel context.CancelFunc }

func newToolServer(p *Plugin, logger hclog.Logger) *toolServer {
	s := &toolServer{
		plugin:   p,
		tools:    make(map[string]*Tool, len(p.Tools)),
		describe: describeToPB(p),
		logger:   logger,
		host:     noHost{},
		calls:    map[string]*inflight{},
	}
	for i := range p.Tools {
		s.tools[p.Tools[i].Spec.Name] = &p.Tools[i]
	}
	return s
}

// validatePlugin refuses a plugin whose description the host would reject.
func validatePlugin(p *Plugin) error {
	if p.Name == "" {
		return errors.New("plugin has no name")
	}
	if p.Version == "" {
		return fmt.Errorf("plugin %s has no version", p.Name)
	}
	seen := map[string]bool{}
	for _, t := range p.Tools {
		name := t.Spec.Name
		switch {
		case !validToolName(name):
			return fmt.Errorf("plugin %s: tool name %q must be 1-64 letters, digits, '_' or '-'", p.Name, name)
		case seen[name]:
			return fmt.Errorf("plugin %s: tool %s is declared twice", p.Name, name)
		case t.Run == nil:
			return fmt.Errorf("plugin %s: tool %s has no Run", p.Name, name)
		case !ValidKind(t.Spec.Kind):
			return fmt.Errorf("plugin %s: tool %s: kind %q is none of read, edit, delete, move, search, execute, think, fetch, other", p.Name, name, t.Spec.Kind)
		}
		seen[name] = true
		if err := CheckSchema(t.Spec.Schema); err != nil {
			return fmt.Errorf("plugin %s: tool %s: schema: %w", p.Name, name, err)
		}
		if err := checkTitle(t.Spec); err != nil {
			return fmt.Errorf("plugin %s: tool %s: title %q: %w", p.Name, name, t.Spec.Title, err)
		}
	}
	for _, et := range p.EventTypes {
		if et == "" {
			return fmt.Errorf("plugin %s declares an empty event type", p.Name)
		}
	}
	return nil
}

// validToolName matches ^[A-Za-z0-9_-]{1,64}$, what model providers accept.
func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func (s *toolServer) Describe(context.Context, *pb.Describe_Request) (*pb.Describe_Response, error) {
	return s.describe, nil
}

func (s *toolServer) Configure(ctx context.Context, req *pb.Configure_Request) (*pb.Configure_Response, error) {
	if lvl := req.GetLogLevel(); lvl != "" {
		if l := hclog.LevelFromString(lvl); l != hclog.NoLevel {
			s.logger.SetLevel(l)
		}
	}
	s.logger.Debug("configured", "host_version", req.GetHostVersion(), "host_protocol_minor", req.GetProtocolMinor(),
		"state_dir", req.GetStateDir())
	s.mu.Lock()
	s.stateDir = req.GetStateDir()
	s.mu.Unlock()
	id := req.GetHostServicesBrokerId()
	if id == 0 {
		return &pb.Configure_Response{}, nil
	}
	if s.broker == nil {
		return nil, status.Error(codes.FailedPrecondition, "no go-plugin broker to reach host services")
	}
	// Dial now: the broker forgets an unclaimed id after 5 s.
	conn, err := s.broker.DialWithOptions(id, grpc.WithDefaultCallOptions(
		grpc.MaxCallRecvMsgSize(wire.MaxMessageBytes), grpc.MaxCallSendMsgSize(wire.MaxMessageBytes)))
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "dial host services: %v", err)
	}
	s.mu.Lock()
	old := s.hostConn
	s.hostConn = conn
	s.host = &hostClient{c: pb.NewHostServicesClient(conn)}
	s.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	return &pb.Configure_Response{}, nil
}

func (s *toolServer) Cancel(_ context.Context, req *pb.Cancel_Request) (*pb.Cancel_Response, error) {
	s.mu.Lock()
	c := s.calls[req.GetCallId()]
	s.mu.Unlock()
	if c != nil {
		c.cancel()
	}
	return &pb.Cancel_Response{}, nil
}

func (s *toolServer) SessionClosed(ctx context.Context, req *pb.SessionClosed_Request) (*pb.SessionClosed_Response, error) {
	if f := s.plugin.SessionClosed; f != nil {
		s.logger.Debug("session closed", "session_id", req.GetSessionId())
		f(ctx, req.GetSessionId())
	}
	return &pb.SessionClosed_Response{}, nil
}

// exit runs the plugin's OnExit hook, once, whichever way the plugin
// stops serving.
func (s *toolServer) exit() {
	s.exitOnce.Do(func() {
		if f := s.plugin.OnExit; f != nil {
			defer func() {
				if v := recover(); v != nil {
					s.logger.Error("OnExit panicked", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				}
			}()
			f()
		}
	})
}

func (s *toolServer) Execute(req *pb.Execute_Request, stream grpc.ServerStreamingServer[pb.Execute_Event]) error {
	call := convert.CallFromProto(req)
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	if call.CallID != "" {
		me := &inflight{cancel: cancel}
		s.mu.Lock()
		s.calls[call.CallID] = me
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			if s.calls[call.CallID] == me {
				delete(s.calls, call.CallID)
			}
			s.mu.Unlock()
		}()
	}
	res := s.run(ctx, call, stream)
	if s.plugin.HoldsState != nil {
		res.HoldsState = s.plugin.HoldsState(call.SessionID)
	}
	out := convert.ResultToProto(res)
	if n := validUTF8(out.ProtoReflect()); n > 0 {
		s.logger.Warn("the tool's result holds strings that are not UTF-8; their invalid bytes are sent as U+FFFD", "tool", call.Tool, "call_id", call.CallID, "strings", n)
		out.Content += fmt.Sprintf("\n[plugin SDK: %d string(s) of this result were not UTF-8; their invalid bytes were replaced with U+FFFD]", n)
	}
	return stream.Send(&pb.Execute_Event{Event: &pb.Execute_Event_Result{Result: out}})
}

// run dispatches one call and turns every failure into an error Result.
func (s *toolServer) run(ctx context.Context, call CallRequest, stream grpc.ServerStreamingServer[pb.Execute_Event]) (res Result) {
	tool := s.tools[call.Tool]
	if tool == nil {
		return ErrorResult("unknown tool %q", call.Tool)
	}
	var (
		mu   sync.Mutex
		done bool
	)
	progress := func(text string) {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return
		}
		_ = stream.Send(&pb.Execute_Event{Event: &pb.Execute_Event_Progress{Progress: &pb.Execute_Progress{Text: strings.ToValidUTF8(text, "\uFFFD")}}})
	}
	defer func() {
		mu.Lock()
		done = true
		mu.Unlock()
	}()
	s.mu.Lock()
	host, stateDir := s.host, s.stateDir
	s.mu.Unlock()
	logger := s.logger.Named(call.Tool).With("call_id", call.CallID)

	defer func() {
		if v := recover(); v != nil {
			logger.Error("tool panicked", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			res = ErrorResult("tool %s panicked: %v", call.Tool, v)
		}
	}()
	res, err := tool.Run(ctx, &Call{CallRequest: call, Progress: progress, Host: host, Logger: logger, StateDir: stateDir})
	if err != nil {
		return ErrorResult("%v", err)
	}
	for _, e := range res.Events {
		if !slices.Contains(s.plugin.EventTypes, e.Type) {
			return ErrorResult("tool %s proposed event type %q, which plugin %s does not declare", call.Tool, e.Type, s.plugin.Name)
		}
		if !json.Valid(e.Data) {
			return ErrorResult("tool %s proposed a %s event whose data is not JSON", call.Tool, e.Type)
		}
	}
	return res
}

// Preview answers what the tool's Preview says of the call; a tool without
// one (or an unknown tool) previews nothing.
func (s *toolServer) Preview(ctx context.Context, req *pb.Preview_Request) (resp *pb.Preview_Response, err error) {
	call := convert.CallFromProto(req.GetCall())
	tool := s.tools[call.Tool]
	if tool == nil || tool.Preview == nil {
		return &pb.Preview_Response{}, nil
	}
	s.mu.Lock()
	host, stateDir := s.host, s.stateDir
	s.mu.Unlock()
	logger := s.logger.Named(call.Tool).With("call_id", call.CallID)
	defer func() {
		if v := recover(); v != nil {
			logger.Error("tool preview panicked", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			resp, err = &pb.Preview_Response{}, nil
		}
	}()
	m := tool.Preview(ctx, &Call{CallRequest: call, Progress: func(string) {}, Host: host, Logger: logger, StateDir: stateDir})
	resp = &pb.Preview_Response{Meta: convert.MetaToProto(m)}
	if n := validUTF8(resp.ProtoReflect()); n > 0 {
		logger.Warn("the tool's preview holds strings that are not UTF-8; their invalid bytes are sent as U+FFFD", "strings", n)
	}
	return resp, nil
}

// hostClient is the plugin side of HostServices.
type hostClient struct{ c pb.HostServicesClient }

func (h *hostClient) ReadState(ctx context.Context, req ReadStateRequest) (ReadStateResponse, error) {
	r, err := h.c.ReadState(ctx, convert.ReadStateRequestToProto(req))
	if err != nil {
		return ReadStateResponse{}, fmt.Errorf("read state: %w", wire.FromStatus(err))
	}
	return convert.StateFromProto(r), nil
}

// RequestPermission implements Permissions over the broker.
func (h *hostClient) RequestPermission(ctx context.Context, req PermissionRequest) (PermissionResponse, error) {
	r, err := h.c.RequestPermission(ctx, convert.PermissionRequestToProto(req))
	if err != nil {
		return PermissionResponse{}, fmt.Errorf("request permission: %w", wire.FromStatus(err))
	}
	return convert.PermissionResponseFromProto(r), nil
}

// SpawnSubagent implements Subagents over the broker.
func (h *hostClient) SpawnSubagent(ctx context.Context, req SubagentRequest, progress Progress) (SubagentResult, error) {
	stream, err := h.c.SpawnSubagent(ctx, convert.SubagentRequestToProto(req))
	if err != nil {
		return SubagentResult{}, fmt.Errorf("spawn subagent: %w", wire.FromStatus(err))
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			if err == io.EOF {
				return SubagentResult{}, errors.New("spawn subagent: the host ended the stream without an answer")
			}
			return SubagentResult{}, fmt.Errorf("spawn subagent: %w", wire.FromStatus(err))
		}
		switch e := ev.GetEvent().(type) {
		case *pb.SpawnSubagent_Event_Progress:
			if progress != nil {
				progress(e.Progress.GetText())
			}
		case *pb.SpawnSubagent_Event_Final:
			return convert.SubagentResultFromProto(e.Final), nil
		}
	}
}

// ReadTextFile implements TextFiles over the broker.
func (h *hostClient) ReadTextFile(ctx context.Context, req ReadTextFileRequest) (TextFile, error) {
	r, err := h.c.ReadTextFile(ctx, convert.ReadTextFileRequestToProto(req))
	if err != nil {
		return TextFile{}, fmt.Errorf("read text file: %w", wire.FromStatus(err))
	}
	return convert.ReadTextFileFromProto(r), nil
}

// WriteTextFile implements TextFiles over the broker.
func (h *hostClient) WriteTextFile(ctx context.Context, req WriteTextFileRequest) (TextFile, error) {
	r, err := h.c.WriteTextFile(ctx, convert.WriteTextFileRequestToProto(req))
	if err != nil {
		return TextFile{}, fmt.Errorf("write text file: %w", wire.FromStatus(err))
	}
	return convert.WriteTextFileFromProto(r), nil
}

// noHost is Call.Host before Configure or when the host offers nothing.
type noHost struct{}

func (noHost) ReadState(context.Context, ReadStateRequest) (ReadStateResponse, error) {
	return ReadStateResponse{}, fmt.Errorf("read state: no host services: %w", ErrUnimplemented)
}
