package llmproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/harness-dev/harness/host/llm"
)

// The wire: one gRPC service with one server-streaming method, written by
// hand (no protoc): the request and every stream message are a
// wrapperspb.BytesValue holding JSON, so the default proto codec carries
// them next to go-plugin's own services.
const (
	serviceName = "harness.llmproc.v1.LLM"
	methodName  = "Stream"
	fullMethod  = "/" + serviceName + "/" + methodName
	// maxMessageBytes caps one message each way (a request carries the
	// whole history, images included).
	maxMessageBytes = 256 << 20
	// maxRetryAfter caps a decoded retry-after.
	maxRetryAfter = 24 * time.Hour
)

// streamHandler is the server side of the Stream method.
type streamHandler interface {
	stream(ctx context.Context, req *wireRequest, send func(*wireMessage) error) error
}

var serviceDesc = grpc.ServiceDesc{
	ServiceName: serviceName,
	HandlerType: (*streamHandler)(nil),
	Streams: []grpc.StreamDesc{{
		StreamName:    methodName,
		ServerStreams: true,
		Handler: func(srv any, ss grpc.ServerStream) error {
			in := new(wrapperspb.BytesValue)
			if err := ss.RecvMsg(in); err != nil {
				return err
			}
			req, err := decodeRequest(in.GetValue())
			if err != nil {
				return ss.SendMsg(wrapperspb.Bytes(encodeMessage(&wireMessage{Error: &wireError{
					Kind: llm.ErrBadRequest, Message: "harness-llm: " + err.Error()}})))
			}
			return srv.(streamHandler).stream(ss.Context(), req, func(m *wireMessage) error {
				return ss.SendMsg(wrapperspb.Bytes(encodeMessage(m)))
			})
		},
	}},
	Metadata: "llmproc (hand-written)",
}

// Config is what the process needs to build a provider: the settings the
// host checked. APIKey travels here, never in the process's environment
// or command line.
type Config struct {
	// Provider is "anthropic" or "openai-responses".
	Provider string `json:"provider"`
	BaseURL  string `json:"baseURL,omitempty"`
	APIKey   string `json:"apiKey,omitempty"`
	KeyHint  string `json:"keyHint,omitempty"`
	Model    string `json:"model,omitempty"`
	// ThinkingBudget is the anthropic provider's thinking setting: > 0
	// budget tokens, < 0 adaptive, 0 none.
	ThinkingBudget int `json:"thinkingBudget,omitempty"`
}

// wireRequest is one Stream call.
type wireRequest struct {
	Config  Config      `json:"config"`
	Request llm.Request `json:"request"`
}

// wireMessage is one stream message: exactly one of Chunk and Error.
type wireMessage struct {
	Chunk *llm.Chunk `json:"chunk,omitempty"`
	Error *wireError `json:"error,omitempty"`
}

// wireError is a failure; Kind "" is an error that was not an *llm.Error.
type wireError struct {
	Kind       llm.ErrorKind `json:"kind,omitempty"`
	Provider   string        `json:"provider,omitempty"`
	Status     int           `json:"status,omitempty"`
	Message    string        `json:"message"`
	RetryAfter time.Duration `json:"retryAfter,omitempty"`
}

func encodeRequest(r *wireRequest) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return b, nil
}

// decodeRequest reads a request and checks it names a provider.
func decodeRequest(b []byte) (*wireRequest, error) {
	var r wireRequest
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("decode request: %w", err)
	}
	if r.Config.Provider == "" {
		return nil, errors.New("decode request: no provider")
	}
	return &r, nil
}

// encodeMessage cannot fail: a chunk is plain strings and numbers.
func encodeMessage(m *wireMessage) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(&wireMessage{Error: &wireError{Kind: llm.ErrMalformed, Message: "encode chunk: " + err.Error()}})
	}
	return b
}

// errorMessage turns a provider's error into its wire form.
func errorMessage(err error) *wireMessage {
	if e, ok := errors.AsType[*llm.Error](err); ok {
		return &wireMessage{Error: &wireError{Kind: e.Kind, Provider: e.Provider, Status: e.Status,
			Message: e.Message, RetryAfter: e.RetryAfter}}
	}
	return &wireMessage{Error: &wireError{Message: err.Error()}}
}

var knownKinds = map[llm.ErrorKind]bool{
	"": true, llm.ErrAuth: true, llm.ErrNotFound: true, llm.ErrBadRequest: true, llm.ErrRateLimit: true,
	llm.ErrServer: true, llm.ErrTransport: true, llm.ErrMalformed: true, llm.ErrContextLength: true,
}

// decodeMessage reads one stream message: a chunk, or the stream's error
// (an *llm.Error with the kind, status, message and retry-after it had in
// the process, or a plain error). It refuses anything else.
func decodeMessage(b []byte) (llm.Chunk, error, error) {
	var m wireMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return llm.Chunk{}, nil, fmt.Errorf("decode stream message: %w", err)
	}
	switch {
	case (m.Chunk == nil) == (m.Error == nil):
		return llm.Chunk{}, nil, errors.New("decode stream message: want exactly one of chunk and error")
	case m.Chunk != nil:
		if m.Chunk.Kind < llm.ChunkText || m.Chunk.Kind > llm.ChunkBlock {
			return llm.Chunk{}, nil, fmt.Errorf("decode stream message: unknown chunk kind %d", m.Chunk.Kind)
		}
		return *m.Chunk, nil, nil
	}
	e := m.Error
	if !knownKinds[e.Kind] {
		return llm.Chunk{}, nil, fmt.Errorf("decode stream message: unknown error kind %q", e.Kind)
	}
	if e.Status < 0 || e.Status > 999 || e.RetryAfter < 0 || e.RetryAfter > maxRetryAfter {
		return llm.Chunk{}, nil, errors.New("decode stream message: status or retry-after out of range")
	}
	if e.Kind == "" {
		return llm.Chunk{}, errors.New(e.Message), nil
	}
	return llm.Chunk{}, &llm.Error{Kind: e.Kind, Provider: e.Provider, Status: e.Status, Message: e.Message, RetryAfter: e.RetryAfter}, nil
}
