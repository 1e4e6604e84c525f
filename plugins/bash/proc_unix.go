//go:build unix && !linux

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// sandbox starts bash directly: there is no PID namespace nor subreaper
// here, so only bash's process group is contained.
type sandbox struct{}

func newSandbox([]string) *sandbox { return &sandbox{} }

func (s *sandbox) harden()             {}
func (s *sandbox) hold() func()        { return func() {} }
func (s *sandbox) sweep(*groups, bool) {}

// spawn starts bash in its own session and process group, without a
// controlling terminal (programs that open /dev/tty fail at once).
func (s *sandbox) spawn(c command, out *os.File) (*leader, error) {
	cmd := exec.Command(c.bash, "-c", c.line)
	cmd.Args[0] = "bash" // its messages say "bash: …", not the path
	cmd.Dir, cmd.Env = c.dir, c.env
	cmd.Stdout, cmd.Stderr = out, out // stdin nil: /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return startLeader(cmd)
}

// groupAlive reports whether a process, perhaps a zombie, is left in the
// group pgid.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

// isInit is false: there is no init without Linux.
func isInit([]string) bool { return false }

func runInit([]string) int { return 1 }
