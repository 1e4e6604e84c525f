package confine

import (
	"errors"
	"strings"
	"testing"

	"github.com/harness-dev/harness/sandbox"
)

// TestAutoRefusal: auto is refused with the sandbox off and on a kernel
// that does not enforce the writes, the network (when off), the
// protected paths or the hidden credential stores; each refusal is one
// line saying what to do.
func TestAutoRefusal(t *testing.T) {
	t.Parallel()
	full := sandbox.Kernel{MountNS: true, NetNS: true, LandlockABI: 7, Seccomp: true, UserNS: true}
	noNS := sandbox.Kernel{LandlockABI: 7, Seccomp: true}
	noLandlock := full
	noLandlock.LandlockABI = 0
	bare := sandbox.Kernel{MountNS: true, LandlockABI: 7}
	tests := map[string]struct {
		sb   Setting
		k    sandbox.Kernel
		want string // "" allowed, else a word of the refusal
	}{
		"default on a full kernel":       {Setting{}, full, ""},
		"read-only":                      {Setting{Mode: sandbox.ReadOnly}, full, ""},
		"network on is the user's":       {Setting{Network: sandbox.NetworkOn}, noNS, "credential stores"},
		"network on, full":               {Setting{Network: sandbox.NetworkOn}, full, ""},
		"sandbox off":                    {Setting{Mode: sandbox.Off}, full, "--sandbox off"},
		"no Landlock":                    {Setting{}, noLandlock, "writes outside"},
		"no namespaces":                  {Setting{}, noNS, "credential stores"},
		"read-only without namespaces":   {Setting{Mode: sandbox.ReadOnly}, noNS, "credential stores"},
		"no network namespace, seccomp":  {Setting{}, sandbox.Kernel{MountNS: true, LandlockABI: 7, Seccomp: true}, ""},
		"no network namespace or filter": {Setting{}, bare, "network off"},
		"not Linux":                      {Setting{}, sandbox.Kernel{}, "writes outside"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := autoRefusal(tc.sb, tc.k)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Errorf("allowed, want refused (%s)", tc.want)
			case err != nil:
				if !errors.Is(err, ErrAutoUnavailable) || !strings.Contains(err.Error(), tc.want) ||
					!strings.Contains(err.Error(), "--mode") || strings.Contains(err.Error(), "\n") {
					t.Errorf("refusal %q: want one line naming %q and --mode", err, tc.want)
				}
			}
		})
	}
}

// TestEscalates: the host reads bash's sandbox argument as the plugin
// does (encoding/json into a string: any case, the last repeated name
// wins) and on the safe side: what it cannot read counts as asking.
func TestEscalates(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args     string
		escalate bool
		off      bool // callSandbox records sandbox off
	}{
		"none":                {`{"command":"ls"}`, false, false},
		"off":                 {`{"command":"ls","sandbox":"off","justification":"x"}`, true, true},
		"upper-case name":     {`{"command":"ls","SANDBOX":"off"}`, true, true},
		"long s":              {`{"command":"ls","ſandbox":"off"}`, true, true},
		"repeated, last null": {`{"sandbox":"off","sandbox":null}`, true, true},
		"repeated, last off":  {`{"sandbox":"","sandbox":"off"}`, true, true},
		"another value":       {`{"sandbox":"OFF"}`, true, false},
		"not a string":        {`{"sandbox":false}`, true, false},
		"not JSON":            {`{"sandbox":"off"`, true, false},
		"empty string":        {`{"command":"ls","sandbox":""}`, false, false},
	}
	for name, tc := range tests {
		if got := Escalates(tc.args); got != tc.escalate {
			t.Errorf("%s: Escalates(%s) = %v, want %v", name, tc.args, got, tc.escalate)
		}
		if v, _ := sandboxArg(tc.args); (v == "off") != tc.off {
			t.Errorf("%s: sandboxArg(%s) = %q, want off %v", name, tc.args, v, tc.off)
		}
	}
}

// FuzzEscalates: whatever the arguments, a value the plugin would read as
// "off" is always an escalation the user is asked about.
func FuzzEscalates(f *testing.F) {
	for _, s := range []string{`{"sandbox":"off"}`, `{"SandBox":"off","sandbox":null}`, `{"command":"ls"}`, `[]`, `{"ſandbox":"off"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		if v, _ := sandboxArg(args); v == "off" && !Escalates(args) {
			t.Errorf("%q runs outside the sandbox unasked", args)
		}
	})
}
