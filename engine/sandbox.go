package engine

import (
	"cmp"
	"fmt"
	"os"

	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/settings/paths"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/sandbox"
)

// Sandbox is the sandbox setting the Runtime's bash commands run under.
func (r *Runtime) Sandbox() confine.Setting { return r.cfg.Sandbox.WithDefaults() }

// sessionSandbox is the sandbox of session id: the Runtime's, with the
// folders the session added (SetSessionDirs) after the Runtime's.
func (r *Runtime) sessionSandbox(id string) confine.Setting {
	sb := r.Sandbox()
	if extra, ok := r.sessionDirs.get(id); ok {
		sb.AddDirs = confine.MergeDirs(sb.AddDirs, extra)
	}
	return sb
}

// SetSessionDirs makes dirs the folders session s adds to the Runtime's
// (ACP's additionalDirectories: the complete list for the session, none
// when empty), each checked by CheckSessionDir, and logs the session's
// sandbox when that changes it. A bad folder is an error naming it, and
// nothing changes.
func (r *Runtime) SetSessionDirs(s *session.Session, dirs []string) error {
	checked, err := r.checkSessionDirs(dirs)
	if err != nil {
		return err
	}
	if len(checked) == 0 {
		r.sessionDirs.remove(s.ID())
	} else {
		r.sessionDirs.set(s.ID(), checked)
	}
	r.setMCPRoots(s) // the servers' roots follow the session's folders
	return r.logSandbox(s)
}

func (r *Runtime) checkSessionDirs(dirs []string) ([]string, error) {
	var checked []string
	for _, d := range dirs {
		c, err := r.CheckSessionDir(d)
		if err != nil {
			return nil, err
		}
		checked = append(checked, c)
	}
	return checked, nil
}

// SessionSandbox is the sandbox session s's commands run under now.
func (r *Runtime) SessionSandbox(s *session.Session) confine.Setting { return r.sessionSandbox(s.ID()) }

// CheckSessionDir is confine.CheckAddDir with the user's home folder: how
// SetSessionDirs and CreateSessionWithDirs check a session's folders.
func (r *Runtime) CheckSessionDir(dir string) (string, error) {
	return confine.CheckAddDir(dir, r.getenv()("HOME"))
}

// getenv is Config.Getenv, else the process's environment.
func (r *Runtime) getenv() func(string) string {
	if r.cfg.Getenv != nil {
		return r.cfg.Getenv
	}
	return os.Getenv
}

// own are harness's config and state folders, which no plugin or
// confined MCP server reads.
func (r *Runtime) own() []string {
	return []string{cmp.Or(r.cfg.ConfigDir, paths.ConfigDir(os.Getenv)), r.cfg.StateDir}
}

// logSandbox logs the sandbox s's commands run under now, By host, unless
// the log's last sandbox/policy says the same: at creation, and when a
// session is continued under another setting (another mode, network,
// added folders, deny-read paths or pids limit).
func (r *Runtime) logSandbox(s *session.Session) error {
	ev := confine.Policy(r.sessionSandbox(s.ID()), event.ByHost)
	if confine.SamePolicy(s.Sandbox(), ev) {
		return nil
	}
	if _, err := s.Append(ev); err != nil {
		return fmt.Errorf("log the sandbox of session %s: %w", s.ID(), err)
	}
	return nil
}

// callSandbox is the sandbox a call of t runs under in session sessionID
// (confine.Call), for agent.Loop.Sandbox.
func (r *Runtime) callSandbox(t tool.Tool, sessionID, cwd, args string) *event.CallSandbox {
	return confine.Call(r.sessionSandbox(sessionID), t, cwd, args)
}

// AutoRefusal says, in one line with what to do, why the auto permission
// mode cannot run under the Runtime's sandbox setting on this kernel
// (probed once per Runtime); nil when it can. See confine's
// Kernel.AutoRefusal. The error wraps confine.ErrAutoUnavailable.
func (r *Runtime) AutoRefusal() error { return r.kernel.AutoRefusal(r.Sandbox()) }

// confiner is the toolbox's Confiner: nil (plugins unconfined) unless
// Config.ConfinePlugins, and with the sandbox off.
func (r *Runtime) confiner() toolbox.Confiner {
	if !r.cfg.ConfinePlugins || r.Sandbox().Mode == sandbox.Off {
		return nil
	}
	return confine.NewPlugins(r.cfg.BuiltinPluginDirs, r.own(), r.log.Named("toolbox"))
}

// mcpConfiner starts the stdio MCP servers that ask for a sandbox
// confined (confine.MCP).
func (r *Runtime) mcpConfiner() func(mcpclient.ServerConfig, string) (pluginhost.Supervisor, error) {
	return confine.MCP(r.getenv(), r.own())
}
