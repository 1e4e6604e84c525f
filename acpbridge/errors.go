package acpbridge

import (
	"errors"

	acp "github.com/coder/acp-go-sdk"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/shorten"
)

// JSON-RPC error codes the bridge answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeNotFound       = -32002 // ACP: resource not found, data.sessionId
	codeAuthRequired   = -32000 // ACP: authentication required
)

// authRequired answers a session request the agent cannot serve without a
// credential; err says which and how to give it.
func authRequired(err error) *acp.RequestError {
	return &acp.RequestError{Code: codeAuthRequired, Message: "Authentication required: " + shorten.OneLine(err.Error()),
		Data: map[string]any{"error": err.Error()}}
}

// notOpen answers a request naming a session this connection has not open.
func notOpen(id string) *acp.RequestError {
	return &acp.RequestError{Code: codeNotFound,
		Message: "Resource not found: session " + quote(id) + " is not open on this connection (session/new, session/load or session/resume it first)",
		Data:    map[string]any{"sessionId": id}}
}

// noSuchSession answers a load or resume of a session the host does not have.
func noSuchSession(id string) *acp.RequestError {
	return &acp.RequestError{Code: codeNotFound, Message: "Resource not found: no session " + quote(id),
		Data: map[string]any{"sessionId": id}}
}

// invalidParams answers a request whose parameters cannot be served.
func invalidParams(err error) *acp.RequestError {
	return &acp.RequestError{Code: codeInvalidParams, Message: "Invalid params: " + shorten.OneLine(err.Error()),
		Data: map[string]any{"error": err.Error()}}
}

// internal answers a request the host failed to serve.
func internal(what string, err error) *acp.RequestError {
	return &acp.RequestError{Code: codeInternal, Message: what + ": " + shorten.OneLine(err.Error()),
		Data: map[string]any{"error": err.Error()}}
}

// turnFailed answers a prompt whose turn ended with reason error.
func turnFailed(id string, err error) *acp.RequestError {
	if err == nil {
		err = errors.New("the turn ended with an error")
	}
	return &acp.RequestError{Code: codeInternal, Message: "turn failed: " + shorten.OneLine(err.Error()),
		Data: map[string]any{"sessionId": id, "reason": string(event.ReasonError), "error": shorten.OneLine(err.Error())}}
}

// openError answers a failed load or resume.
func openError(id string, err error) *acp.RequestError {
	if errors.Is(err, ErrSessionNotFound) {
		return noSuchSession(id)
	}
	if errors.Is(err, ErrAuthRequired) {
		return authRequired(err)
	}
	return internal("open session "+quote(id), err)
}
