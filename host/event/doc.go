// Package event is the closed vocabulary of session events and their JSON
// encoding. It does no I/O.
//
// # Envelope
//
// Every event is one JSON object on one line of a session log:
//
//	{"seq":N,"time":"RFC 3339","type":"…","data":{…}}
//
// seq is contiguous from 0 within a session. data is the type's payload.
//
// # Vocabulary
//
// The host's own types are the constants of [Type] with a payload struct each
// ([TurnStart], [TurnEnd], …). Plugins may propose further types that they
// declare; those travel as raw JSON and [Event.Decode] reports them with
// [ErrUnknownType] rather than guessing at their shape.
//
// A payload struct is the one place its JSON shape is defined: its exported
// fields and their json tags. host/session's replay decoder reads it from
// there; it handles fields of kind int, string, bool, *struct, []struct and
// []string (a test there fails on any other).
//
// # Surface
//
// user/message, assistant/message and tool/result are the surface: they alone
// derive the model's history ([IsSurface]). Every other event is durable UI and
// replay state that never reaches the model — except context/compact
// ([Compact]), which changes how the history is derived from there on: its
// summary (with the todo list current then, [Compact.ContextText]) replaces
// the surface events before its Keep seq for the model; the log keeps them.
//
// # Turns
//
// Every event sits inside an open turn: between a turn/start and its turn/end.
// Steps (step/start, step/end) nest inside turns and are numbered from 1.
// Three session settings are the exceptions and may come anywhere, between
// turns or during one, for what follows: config/option ([ConfigOption]:
// the session's model, its reasoning effort), permission/mode
// ([PermissionMode]: a session is created with one, and the editor may
// switch modes) and sandbox/policy ([SandboxPolicy]: the sandbox its bash
// commands run under, logged at creation and when it changes).
package event
