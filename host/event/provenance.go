package event

// Source says who decided on a tool call that needed permission
// ([Permission].Source). Its JSON is the bare string.
type Source string

// Who decided on a tool call.
const (
	SourceUser      Source = "user"      // the user's (or the editor's) answer
	SourceRule      Source = "rule"      // a configured rule
	SourceMode      Source = "mode"      // the session's permission mode
	SourceSession   Source = "session"   // an earlier "always" answer of the session
	SourceProtected Source = "protected" // a call touching a protected path, with nobody to ask
	SourceError     Source = "error"     // the check itself failed: the call is refused
)

// By says who set a session setting ([PermissionMode].By,
// [SandboxPolicy].By, [ConfigOption].By). Its JSON is the bare string.
type By string

// Who set a session setting.
const (
	// ByHost: the host (the harness process) — its settings (flag,
	// environment, config file or default) when the session was created
	// or a turn started, or the model it runs.
	ByHost By = "host"
	// ByFlag: a flag given when the session was continued (--mode,
	// --yes, HARNESS_MODE).
	ByFlag By = "flag"
	// ByClient: the editor, through ACP (session/set_mode,
	// session/set_config_option).
	ByClient By = "client"
)
