// Package jsonrpc is a JSON-RPC 2.0 connection over newline-delimited
// messages, as ACP speaks it on stdio: acpbridge's transport. It owns the
// wire and nothing of ACP: framing, limits, dispatch, the calls the agent
// makes to the client, cancellation and the drain when the input ends.
//
// # Framing
//
// One message is one line. Every line is decoded once, by [Decode], into a
// [Message]: id, method, and params, result or error kept as raw JSON for
// the handler to decode into its own types. A bad line costs the peer an
// error response, never the connection: a line that is not JSON is
// answered -32700 (id null); a JSON value that is not an object, a batch
// (refused: ACP has none) and an object with neither method nor id -32600;
// a line over Options.MaxMessageBytes -32600 naming the limit, with the
// request's id when it is found near the start of the line. Blank lines
// are skipped.
//
// # Requests and notifications
//
// [Conn.Serve] hands each request to the [Handler] in a goroutine of its
// own, so that requests are answered in any order; notifications go to
// the same Handler in the read loop itself, one at a time in arrival
// order (a handler must not block on them), and are never answered. A
// handler's error is answered as it is when it is an [*Error], -32800
// when it is a cancellation (context.Canceled), else -32603 carrying its
// text. $/cancel_request {requestId} cancels the context of the request
// it names; the handler answers as it sees fit (its result, or -32800).
// The response is written once the handler has returned; what it wrote
// before (notifications) precedes the response, and [Request.AfterReply]
// runs a function right after the response is on the wire.
//
// # Calls to the peer
//
// [Conn.Call] sends a request with an id of its own and waits for the
// response with that id, matched in a pending map (a response nobody
// waits for is logged and dropped). A call whose context ends first sends
// $/cancel_request for it and returns the context's error; every call
// still waiting when the input ends fails with [ErrPeerGone].
// [Conn.Notify] sends a notification; [EncodeNotification] and [Conn.Send]
// let a caller encode many ahead and write them in one go. Writes are
// whole lines, serialised, each written before the function returns:
// nothing is queued.
//
// # The end
//
// Serve returns when the input ends (nil), ctx is done, or a read fails.
// Requests already read keep running: [Conn.Wait] waits for them (or some
// of them), [Conn.Cancel] cancels their contexts, and [Conn.Close] cancels
// the rest and makes every later write a no-op returning [ErrClosed], so
// that nothing reaches the output once the owner is done with it.
//
// The package is small and stands alone (the standard library only) rather
// than pulling in golang.org/x/exp/jsonrpc2, whose framer/handler split it
// follows: ACP needs line framing with a size limit, answers for bad lines,
// $/cancel_request and a drain the owner controls, and none of x/exp's
// other transports or its unstable API.
package jsonrpc
