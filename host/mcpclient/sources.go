package mcpclient

import (
	"os"
	"strings"
)

// Sources are where a session's MCP servers are configured besides the
// front end's (the editor's mcpServers): the user's mcp.json (UserFile;
// "" reads none) and the project's .mcp.json in the session's folder,
// whose servers are commands from the repository and run only when
// TrustProject. Getenv expands ${VAR} in the files (nil: os.Getenv).
type Sources struct {
	UserFile     string
	TrustProject bool
	Getenv       func(string) string
}

// Gather returns the servers of a session in folder cwd: the user's
// file's, the project's when trusted, then servers, merged (Merge: a later
// source's server replaces an earlier one of the same name). untrusted
// are the project's servers left out because TrustProject is false;
// warnings are one line each for the servers a file left out.
func (c Sources) Gather(cwd string, servers []ServerConfig) (all, untrusted []ServerConfig, warnings []string) {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var lists [][]ServerConfig
	if c.UserFile != "" {
		list, err := LoadFile(c.UserFile, getenv)
		if err != nil {
			warnings = append(warnings, "some MCP servers of the user's file are left out: "+err.Error())
		}
		lists = append(lists, list)
	}
	switch list, err := LoadFile(ProjectFile(cwd), getenv); {
	case len(list) > 0 && !c.TrustProject:
		untrusted = list
	case c.TrustProject:
		if err != nil {
			warnings = append(warnings, "some MCP servers of the project's file are left out: "+err.Error())
		}
		lists = append(lists, list)
	}
	lists = append(lists, servers)
	return Merge(lists...), untrusted, warnings
}

// Untrusted is the one line saying that the project's servers untrusted
// (Gather's) were not started, and how to have them.
func (c Sources) Untrusted(untrusted []ServerConfig) string {
	names := make([]string, len(untrusted))
	for i, s := range untrusted {
		names[i] = s.Name
	}
	user := c.UserFile
	if user == "" {
		user = "the user's mcp.json"
	}
	return "the project's MCP servers are not started: " + untrusted[0].Source + " would run commands from the repository (" +
		strings.Join(names, ", ") + "); trust it with HARNESS_MCP_PROJECT=1, or copy the servers to " + user
}

// NotTrusted is how a listing shows a project server Gather left out
// untrusted: not started, saying why.
func NotTrusted(c ServerConfig) ServerInfo {
	info := c.Info()
	info.Status, info.Err = StatusNotStarted, "the project's servers run commands from the repository; trust them with HARNESS_MCP_PROJECT=1"
	return info
}
