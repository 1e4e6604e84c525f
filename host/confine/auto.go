package confine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/harness-dev/harness/sandbox"
)

// ErrAutoUnavailable marks the refusal of the auto permission mode where
// the sandbox cannot hold it (see AutoRefusal).
var ErrAutoUnavailable = errors.New("the auto mode is unavailable")

// AutoRefusal says, in one line with what to do, why the auto permission
// mode cannot run under setting sb on this kernel; nil when it can. auto runs commands unasked because they run in the
// sandbox, so it needs the sandbox on and these rows of
// sandbox.Kernel.Enforceable enforced: the writes, the network when it is
// off, the protected paths inside the roots (a git hook written unasked
// runs outside the sandbox later) and the hidden credential stores. The
// kernel is probed once per Kernel value. The error wraps
// ErrAutoUnavailable.
func (k *Kernel) AutoRefusal(sb Setting) error {
	k.once.Do(func() { k.kernel = sandbox.Probe() })
	return autoRefusal(sb, k.kernel)
}

// Kernel is what this kernel offers a sandbox (sandbox.Probe), probed on
// first use. The zero value is ready; it is safe for concurrent use.
type Kernel struct {
	once   sync.Once
	kernel sandbox.Kernel
}

// autoRefusal is AutoRefusal for setting sb on kernel k.
func autoRefusal(sb Setting, k sandbox.Kernel) error {
	sb = sb.WithDefaults()
	if sb.Mode == sandbox.Off {
		return fmt.Errorf("%w: it runs commands without asking because they run in the sandbox, and the sandbox is off; "+
			"drop --sandbox off (HARNESS_SANDBOX, config key sandbox) or choose another --mode", ErrAutoUnavailable)
	}
	need := []string{"writes outside", "credential stores"}
	if sb.Mode == sandbox.WorkspaceWrite {
		need = append(need, "protected paths inside the roots")
	}
	if sb.Network == sandbox.NetworkOff {
		need = append(need, "network off")
	}
	rows := k.Enforceable(sandbox.Policy{Mode: sb.Mode, Network: sb.Network})
	for _, n := range need {
		i := slices.IndexFunc(rows, func(r sandbox.Row) bool { return strings.HasPrefix(r.What, n) })
		if i < 0 {
			return fmt.Errorf("%w: harness cannot tell whether this kernel enforces the sandbox's %q row; choose another --mode", ErrAutoUnavailable, n)
		}
		if !rows[i].Enforced {
			return fmt.Errorf("%w: this kernel does not enforce the sandbox's %q (%s), and auto runs commands unasked only because they run in the sandbox; "+
				"see harness sandbox, and choose another --mode", ErrAutoUnavailable, rows[i].What, rows[i].How)
		}
	}
	return nil
}
