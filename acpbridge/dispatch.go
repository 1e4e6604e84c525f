package acpbridge

import (
	"context"
	"encoding/json"
	"errors"

	acp "github.com/coder/acp-go-sdk"

	"github.com/harness-dev/harness/acpbridge/internal/jsonrpc"
)

// handle serves one request or notification of the client: its params are
// decoded into the SDK's type for the method and checked (-32602 when they
// do not fit), then handed to the bridge's method. Methods harness does not
// serve are answered -32601.
func (b *bridge) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	res, err := b.route(ctx, req)
	var re *acp.RequestError
	if errors.As(err, &re) {
		return nil, &jsonrpc.Error{Code: re.Code, Message: re.Message, Data: re.Data}
	}
	return res, err
}

func (b *bridge) route(ctx context.Context, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case acp.AgentMethodInitialize:
		return decoded(ctx, req, func(ctx context.Context, p *acp.InitializeRequest) (acp.InitializeResponse, error) {
			b.noteCapabilities(req.Params)
			b.noteNotices(req.Params)
			return b.Initialize(ctx, *p)
		})
	case acp.AgentMethodAuthenticate:
		return decoded(ctx, req, value(b.Authenticate))
	case acp.AgentMethodSessionNew:
		return decoded(ctx, req, func(ctx context.Context, p *acp.NewSessionRequest) (acp.NewSessionResponse, error) {
			resp, err := b.NewSession(ctx, *p)
			if err == nil {
				// An editor knows the session once it has the response.
				req.AfterReply(func() {
					if ls, ok := b.lookup(resp.SessionId); ok {
						b.sendCommands(ls.s)
						b.watchNotices(ls)
					}
				})
			}
			return resp, err
		})
	case acp.AgentMethodSessionLoad:
		return decoded(ctx, req, value(b.LoadSession))
	case acp.AgentMethodSessionResume:
		return decoded(ctx, req, value(b.ResumeSession))
	case acp.AgentMethodSessionFork:
		if _, ok := b.agent.(ForkAgent); !ok {
			break // not advertised
		}
		return decoded(ctx, req, func(ctx context.Context, p *acp.UnstableForkSessionRequest) (acp.UnstableForkSessionResponse, error) {
			resp, err := b.ForkSession(ctx, *p)
			if err == nil {
				req.AfterReply(func() {
					if ls, ok := b.lookup(resp.SessionId); ok {
						b.sendCommands(ls.s)
					}
				})
			}
			return resp, err
		})
	case acp.AgentMethodSessionList:
		return decoded(ctx, req, value(b.ListSessions))
	case acp.AgentMethodSessionClose:
		return decoded(ctx, req, value(b.CloseSession))
	case acp.AgentMethodSessionPrompt:
		return decoded(ctx, req, b.servePrompt)
	case acp.AgentMethodSessionCancel:
		return decoded(ctx, req, b.serveCancel)
	case acp.AgentMethodSessionSetMode:
		return decoded(ctx, req, value(b.SetSessionMode))
	case acp.AgentMethodSessionSetConfigOption:
		return decoded(ctx, req, value(b.SetSessionConfigOption))
	}
	return nil, jsonrpc.MethodNotFound(req.Method)
}

// params is an SDK request type: decoded into through a pointer, which
// checks it.
type params[P any] interface {
	*P
	Validate() error
}

// decoded decodes req's params into a P, checks them and calls f.
func decoded[P any, PP params[P], R any](ctx context.Context, req *jsonrpc.Request, f func(context.Context, PP) (R, error)) (any, error) {
	p := PP(new(P))
	if err := json.Unmarshal(req.Params, p); err != nil {
		return nil, invalidParams(err)
	}
	if err := p.Validate(); err != nil {
		return nil, invalidParams(err)
	}
	r, err := f(ctx, p)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// value adapts a method taking its params by value.
func value[P, R any](f func(context.Context, P) (R, error)) func(context.Context, *P) (R, error) {
	return func(ctx context.Context, p *P) (R, error) { return f(ctx, *p) }
}

// promptRun is a session/prompt being served.
type promptRun struct{ cancel context.CancelFunc }

// servePrompt runs Prompt under a context that session/cancel, and a newer
// prompt for the same session, cancel.
func (b *bridge) servePrompt(ctx context.Context, p *acp.PromptRequest) (acp.PromptResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	run := &promptRun{cancel: cancel}
	id := string(p.SessionId)
	b.promptMu.Lock()
	if prev := b.prompts[id]; prev != nil {
		prev.cancel() // superseded
	}
	b.prompts[id] = run
	b.promptMu.Unlock()
	defer func() {
		b.promptMu.Lock()
		if b.prompts[id] == run {
			delete(b.prompts, id)
		}
		b.promptMu.Unlock()
		cancel()
	}()
	return b.Prompt(ctx, *p)
}

// serveCancel cancels the session's pending prompt, then its turn.
func (b *bridge) serveCancel(ctx context.Context, p *acp.CancelNotification) (any, error) {
	id := string(p.SessionId)
	b.promptMu.Lock()
	if run := b.prompts[id]; run != nil {
		run.cancel()
		delete(b.prompts, id)
	}
	b.promptMu.Unlock()
	return nil, b.Cancel(ctx, *p)
}
