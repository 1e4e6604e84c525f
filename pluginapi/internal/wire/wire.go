// Package wire holds what both sides of the plugin protocol must agree on
// beyond the generated code: the name the tools service is dispensed
// under, the message size bound, the gRPC server options, and the mapping
// between Go errors and gRPC statuses. Package pluginapi (the plugin side)
// and package pluginapi/pluginhost (the host side) import it; nothing else
// can.
package wire

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"strings"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// PluginSetName is the name the tools service is dispensed under.
const PluginSetName = "tools"

// MaxMessageBytes bounds one gRPC message each way, on every connection of
// the protocol (go-plugin's plugin-side default would be 4 MiB).
const MaxMessageBytes = 64 << 20

// ErrUnimplemented is pluginapi.ErrUnimplemented: wrapped by errors of
// HostServices methods the host does not offer (gRPC Unimplemented).
var ErrUnimplemented = errors.New("not implemented by this host")

// DialOptions are the client options of every connection of the protocol.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(
		grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes))}
}

// FromStatus maps a gRPC error from the other side to a Go error:
// Unimplemented wraps ErrUnimplemented, cancellation and deadlines their
// context errors.
func FromStatus(err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.Unimplemented:
		msg := strings.TrimSuffix(strings.TrimSuffix(st.Message(), ErrUnimplemented.Error()), ": ")
		if msg == "" {
			return ErrUnimplemented
		}
		return fmt.Errorf("%s: %w", msg, ErrUnimplemented)
	case codes.NotFound:
		return fmt.Errorf("%s: %w", st.Message(), fs.ErrNotExist)
	case codes.Canceled:
		return context.Canceled
	case codes.DeadlineExceeded:
		return context.DeadlineExceeded
	}
	return errors.New(st.Message())
}

// ToStatus maps a Go error to a gRPC status for the other side.
func ToStatus(err error) error {
	switch {
	case errors.Is(err, ErrUnimplemented):
		return status.Error(codes.Unimplemented, err.Error())
	case errors.Is(err, fs.ErrNotExist):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status.FromContextError(err).Err()
	}
	return status.Error(codes.Unknown, err.Error())
}

// recoverUnary and recoverStream keep a panic outside the Execute dispatch
// (which recovers on its own) from killing the process: the RPC fails with
// codes.Internal and the stack is logged.
func recoverUnary(logger hclog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if v := recover(); v != nil {
				logger.Error("rpc panicked", "method", info.FullMethod, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				err = status.Errorf(codes.Internal, "%s panicked: %v", info.FullMethod, v)
			}
		}()
		return handler(ctx, req)
	}
}

func recoverStream(logger hclog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		defer func() {
			if v := recover(); v != nil {
				logger.Error("rpc panicked", "method", info.FullMethod, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				err = status.Errorf(codes.Internal, "%s panicked: %v", info.FullMethod, v)
			}
		}()
		return handler(srv, ss)
	}
}

// ServerFactory builds the gRPC servers of the protocol: 64 MiB messages
// and panic recovery, after go-plugin's own options.
func ServerFactory(logger hclog.Logger) func([]grpc.ServerOption) *grpc.Server {
	return func(opts []grpc.ServerOption) *grpc.Server {
		opts = append(opts,
			grpc.MaxRecvMsgSize(MaxMessageBytes),
			grpc.MaxSendMsgSize(MaxMessageBytes),
			grpc.ChainUnaryInterceptor(recoverUnary(logger)),
			grpc.ChainStreamInterceptor(recoverStream(logger)),
		)
		return grpc.NewServer(opts...)
	}
}
