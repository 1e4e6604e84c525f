//go:build unix && !linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// launcher starts bash directly: there is no PID namespace nor subreaper
// here, so only bash's process group is contained.
type launcher struct{}

func newLauncher([]string) *launcher { return &launcher{} }

func (s *launcher) harden()                         {}
func (s *launcher) sandboxed(bool)                  {}
func (s *launcher) serveNetwork(*proxies)           {}
func (s *launcher) keepPlaceholders(string)         {}
func (s *launcher) awaitPlaceholders(time.Duration) {}
func (s *launcher) hold() func()                    { return func() {} }
func (s *launcher) sweep(*groups, bool)             {}
func (s *launcher) close()                          {}

// spawn starts bash in its own session and process group, without a
// controlling terminal (programs that open /dev/tty fail at once), and
// returns it and the read end of its output (stdout and stderr).
func (s *launcher) spawn(c command) (*leader, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("create pipe: %w", err)
	}
	defer func() { _ = w.Close() }() // bash has its copy
	cmd := exec.Command(c.bash, "-c", c.line)
	cmd.Args[0] = "bash" // its messages say "bash: …", not the path
	cmd.Dir, cmd.Env = c.dir, c.env
	cmd.Stdout, cmd.Stderr = w, w // stdin nil: /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	l, err := startLeader(cmd)
	if err != nil {
		_ = r.Close()
		return nil, nil, err
	}
	return l, r, nil
}

// groupAlive reports whether a process, perhaps a zombie, is left in the
// group pgid.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

// isInit is false: there is no init without Linux.
func isInit([]string) bool { return false }

func runInit([]string) int { return 1 }
