package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
)

// Environment of the crash helper process.
const (
	crashDirEnv = "HARNESS_SESSION_CRASH_DIR"
	crashIDEnv  = "HARNESS_SESSION_CRASH_ID"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashHelper(dir)
	}
	os.Exit(m.Run())
}

// crashHelper is the test binary run again by TestCrash with crashDirEnv
// set (TestMain): it appends whole turns to the session until it is
// killed, printing "synced N" once turn N's turn/end — synced by Append —
// has returned.
func crashHelper(dir string) {
	st := &Store{Dir: dir}
	id := os.Getenv(crashIDEnv)
	s, err := st.Open(id)
	if errors.Is(err, ErrNotFound) {
		s, err = st.Create(CreateOptions{ID: id, Cwd: "/"})
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	text := strings.Repeat("All work and no play makes Jack a dull boy. ", 40) // ~1.8 kB: lines cross pages
	check := func(_ event.Event, err error) {
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
	}
	for {
		n := s.LastTurn() + 1
		call := fmt.Sprintf("call-%d", n)
		check(s.Append(event.TurnStart{Turn: n}))
		check(s.Append(event.UserMessage{Content: event.Text(fmt.Sprintf("prompt %d", n))}))
		check(s.Append(event.StepStart{Turn: n, Step: 1}))
		check(s.Append(event.AssistantMessage{Turn: n, Step: 1, Text: text, ToolCalls: []event.ToolCallRequest{{ID: call, Name: "bash", Arguments: "{}"}}}))
		check(s.Append(event.ToolCall{Turn: n, Step: 1, CallID: call, Name: "bash", Args: "{}"}))
		// A tool at work: widen the window in which a kill finds the turn open.
		time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
		check(s.Append(event.ToolResult{Turn: n, Step: 1, CallID: call, Content: text}))
		check(s.Append(event.StepEnd{Turn: n, Step: 1}))
		check(s.Append(event.TurnEnd{Turn: n, Reason: event.ReasonCompleted}))
		fmt.Printf("synced %d\n", n)
	}
}

// TestCrash kills a writer process with SIGKILL at arbitrary points and
// checks, after every kill, that each turn it reported synced is intact, seq
// is contiguous, and a turn it did not finish is either absent or closed as
// interrupted. Each round reopens (and so repairs) the same session.
//
// It does not run in parallel: a forked child shares every open file of the
// test process, and with it the flock of a log another test just closed,
// until it execs — that test's reopen would then find its log locked.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	st := &Store{Dir: dir}
	const id = "crash"
	synced := map[int]bool{}
	interruptedTurns := 0
	for round := range 6 {
		cmd := exec.Command(os.Args[0], "-test.run=^$") // crashHelper (TestMain)
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashIDEnv+"="+id)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		want := 3 + rand.IntN(8)
		timeout := time.After(60 * time.Second)
	read:
		for got := 0; got < want; {
			select {
			case line, ok := <-lines:
				if !ok {
					cmd.Wait()
					t.Fatalf("round %d: helper exited early: %s", round, stderr.String())
				}
				n, err := strconv.Atoi(strings.TrimPrefix(line, "synced "))
				if err != nil {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("round %d: helper said %q", round, line)
				}
				synced[n] = true
				got++
			case <-timeout:
				break read
			}
		}
		// Land the kill anywhere in a turn.
		time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		cmd.Wait()
		for range lines { // drain what was printed before the kill
		}

		s, err := st.Open(id)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		rec := s.Recovery()
		if rec.InterruptedTurn != 0 {
			interruptedTurns++
		}
		t.Logf("round %d: %d events, %d turns; %v", round, s.Len(), s.LastTurn(), rec)

		for i, ev := range s.Events() {
			if ev.Seq != int64(i) {
				t.Fatalf("round %d: event %d has seq %d", round, i, ev.Seq)
			}
		}
		if n, open := s.OpenTurn(); open {
			t.Errorf("round %d: turn %d left open", round, n)
		}
		turns := s.Turns()
		byNum := map[int]Turn{}
		for i, tr := range turns {
			if tr.Turn != i+1 {
				t.Errorf("round %d: turn %d numbered %d", round, i+1, tr.Turn)
			}
			byNum[tr.Turn] = tr
			switch tr.Reason {
			case event.ReasonCompleted:
				if tr.End-tr.Start != 7 {
					t.Errorf("round %d: completed turn %d has %d events, want 8", round, tr.Turn, tr.End-tr.Start+1)
				}
			case event.ReasonInterrupted:
				if synced[tr.Turn] {
					t.Errorf("round %d: turn %d was reported synced but is interrupted", round, tr.Turn)
				}
			default:
				t.Errorf("round %d: turn %d ended %q", round, tr.Turn, tr.Reason)
			}
		}
		for n := range synced {
			if tr, ok := byNum[n]; !ok || tr.Reason != event.ReasonCompleted {
				t.Errorf("round %d: synced turn %d is %+v", round, n, tr)
			}
		}
		// The model's history is valid: every call has a result.
		results := map[string]bool{}
		for _, m := range s.Messages() {
			if m.Role == llm.RoleTool {
				results[m.ToolCallID] = true
			}
		}
		for _, m := range s.Messages() {
			for _, c := range m.ToolCalls {
				if !results[c.ID] {
					t.Errorf("round %d: call %s has no result", round, c.ID)
				}
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d synced turns checked; %d rounds found a turn to close as interrupted", len(synced), interruptedTurns)
}
