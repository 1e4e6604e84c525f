package pluginhost

import (
	"github.com/harness-dev/harness/pluginapi"

	"fmt"
	"strconv"
	"strings"
)

// StartErrorKind classifies why a plugin did not start.
type StartErrorKind string

// Start error kinds.
const (
	// StartNotPlugin: the binary is not a harness plugin: it printed
	// something other than the go-plugin handshake, cannot be executed, or
	// belongs to another go-plugin host.
	StartNotPlugin StartErrorKind = "not_plugin"
	// StartVersion: the plugin speaks another major plugin protocol.
	StartVersion StartErrorKind = "version"
	// StartTimeout: no handshake within LaunchConfig.StartTimeout.
	StartTimeout StartErrorKind = "timeout"
	// StartExited: the process exited before its handshake without printing
	// anything (a crash at start-up, a missing library, …).
	StartExited StartErrorKind = "exited"
	// StartSpawn: the binary could not be run (missing, not executable).
	StartSpawn StartErrorKind = "spawn"
)

// StartError is the one-line reason a plugin did not start.
type StartError struct {
	Name string // LaunchConfig.Name
	Path string
	Kind StartErrorKind
	// PluginVersions are the protocol versions the plugin offered (Kind
	// StartVersion).
	PluginVersions []int
	// Stderr is the tail of the plugin's stderr.
	Stderr []string
	// Detail is what the plugin printed instead of a handshake (Kind
	// StartNotPlugin), the exit status (StartExited) or the timeout
	// (StartTimeout).
	Detail string
	// Err is go-plugin's or the operating system's error, for the logs.
	Err error
}

func (e *StartError) Error() string {
	name := e.Name
	if name == "" {
		name = e.Path
	}
	switch e.Kind {
	case StartNotPlugin:
		if e.Detail != "" {
			return fmt.Sprintf("%s is not a harness plugin: %s", name, e.Detail)
		}
		return fmt.Sprintf("%s is not a harness plugin", name)
	case StartVersion:
		return fmt.Sprintf("plugin %s speaks plugin protocol %s; this harness speaks %d", name, joinInts(e.PluginVersions), pluginapi.ProtocolVersion)
	case StartTimeout:
		return fmt.Sprintf("plugin %s did not complete its handshake within %s", name, e.Detail)
	case StartExited:
		msg := fmt.Sprintf("plugin %s exited before its handshake", name)
		if e.Detail != "" {
			msg += " (" + e.Detail + ")"
		}
		if line := lastUsefulLine(e.Stderr); line != "" {
			msg += ": " + line
		}
		return msg
	default:
		return fmt.Sprintf("cannot run plugin %s: %v", name, e.Err)
	}
}

func (e *StartError) Unwrap() error { return e.Err }

// ExitError reports a plugin process that died: during a call, or before a
// call was made to it.
type ExitError struct {
	Name string
	PID  int
	// State is how it ended: "exit status 3", "signal: killed".
	State string
	// Stderr is the tail of its stderr, oldest first.
	Stderr []string
	// Err is the transport error the call saw, if any.
	Err error
}

func (e *ExitError) Error() string {
	msg := fmt.Sprintf("plugin %s (pid %d) exited", e.Name, e.PID)
	if e.PID == 0 {
		msg = fmt.Sprintf("plugin %s stopped", e.Name) // served in process
	}
	if e.State != "" {
		msg += " (" + e.State + ")"
	}
	if line := lastUsefulLine(e.Stderr); line != "" {
		msg += ": " + line
	}
	return msg
}

func (e *ExitError) Unwrap() error { return e.Err }

func joinInts(v []int) string {
	if len(v) == 0 {
		return "?"
	}
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
