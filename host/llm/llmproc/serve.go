package llmproc

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/harness-dev/harness/host/llm"
)

// handshake is the go-plugin handshake of harness-llm; the cookie keeps
// the binary from serving when started by hand.
func handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  1,
		MagicCookieKey:   "HARNESS_LLM_PROC",
		MagicCookieValue: "sdk-providers",
	}
}

// pluginName is the name the service is dispensed under.
const pluginName = "llm"

// Streamer is a provider as the process serves it.
type Streamer interface {
	Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error]
}

// OpenFunc builds the provider cfg names (cfg.Provider); its error is a
// settings error, sent back as ErrBadRequest.
type OpenFunc func(cfg Config, log hclog.Logger) (Streamer, error)

// maxCached bounds the providers a process keeps built.
const maxCached = 16

// server serves Stream with the providers open builds, one per distinct
// Config, kept for the process's life (their HTTP connections are reused).
type server struct {
	open OpenFunc
	log  hclog.Logger

	mu        sync.Mutex
	providers map[Config]Streamer
}

func (s *server) provider(cfg Config) (Streamer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.providers[cfg]; ok {
		return p, nil
	}
	p, err := s.open(cfg, s.log.Named(cfg.Provider))
	if err != nil {
		return nil, err
	}
	if len(s.providers) >= maxCached {
		clear(s.providers)
	}
	s.providers[cfg] = p
	return p, nil
}

func (s *server) stream(ctx context.Context, req *wireRequest, send func(*wireMessage) error) error {
	p, err := s.provider(req.Config)
	if err != nil {
		return send(&wireMessage{Error: &wireError{Kind: llm.ErrBadRequest, Provider: req.Config.Provider, Message: err.Error()}})
	}
	for c, err := range p.Stream(ctx, req.Request) {
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return send(errorMessage(err))
		}
		if err := send(&wireMessage{Chunk: &c}); err != nil {
			return err
		}
	}
	return nil
}

// grpcPlugin registers the service (server side) and hands out the
// connection (client side).
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *server
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	s.RegisterService(&serviceDesc, p.srv)
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return cc, nil
}

// Serve is harness-llm's main: it serves the providers open builds to the
// host that started it, logging to stderr (JSON lines, which go-plugin
// relays to the host's log), and exits when stdin reaches EOF (the host,
// which alone holds its write end, is gone), when its parent changes, or
// when ctx ends. Run by hand (without the host's handshake cookie) it
// prints what it is and returns 1.
func Serve(ctx context.Context, open OpenFunc, stdin io.Reader, stderr io.Writer) int {
	if os.Getenv(handshake().MagicCookieKey) != handshake().MagicCookieValue {
		fmt.Fprintln(stderr, "harness-llm serves harness's anthropic and openai-responses providers to harness, which starts it on first use; it is not run by hand") // stdout-ok: the injected stderr
		return 1
	}
	log := hclog.New(&hclog.LoggerOptions{Name: "harness-llm", Level: hclog.LevelFromString(os.Getenv("HARNESS_LLM_LOG_LEVEL")),
		Output: stderr, JSONFormat: true})
	exit := func(why string) {
		log.Debug(why + "; exiting")
		os.Exit(0)
	}
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		exit("host is gone (stdin closed)")
	}()
	go func() {
		ppid := os.Getppid()
		for {
			select {
			case <-ctx.Done():
				exit("stopped")
			case <-time.After(500 * time.Millisecond):
				if os.Getppid() != ppid {
					exit("host is gone (parent changed)")
				}
			}
		}
	}()
	srv := &server{open: open, log: log, providers: map[Config]Streamer{}}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: handshake(),
		Plugins:         plugin.PluginSet{pluginName: &grpcPlugin{srv: srv}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, grpc.MaxRecvMsgSize(maxMessageBytes), grpc.MaxSendMsgSize(maxMessageBytes))...)
		},
		Logger: log,
	})
	return 0
}
