package confine

import (
	"os/exec"

	"github.com/harness-dev/harness/host/keeper"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// Supervise is the supervisor every process the host starts runs under —
// tool plugins (toolbox.Config.Supervisor), harness-llm
// (llmproc.Options.Supervisor) and, through host/mcpclient, stdio MCP
// servers: host/keeper's, a child subreaper that kills what the process
// left when it ends and everything when harness dies, even by SIGKILL. In
// a binary whose main does not call keeper.Main first (or not on Linux) it
// runs the process directly.
func Supervise(cmd *exec.Cmd) (pluginhost.Supervised, error) { return keeper.Wrap(cmd) }
