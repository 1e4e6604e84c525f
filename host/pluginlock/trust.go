package pluginlock

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Trust is what the user trusted one plugin binary with: its sha256 and
// the capabilities it declared beyond the default confinement when they
// were shown (pluginapi.Capabilities' JSON form; this package imports
// nothing of the module). A binary with another sum is not trusted.
type Trust struct {
	SHA256       string       `json:"sha256"`
	Capabilities Capabilities `json:"capabilities"`
}

// Capabilities mirrors pluginapi.Capabilities, field for field.
type Capabilities struct {
	Network   bool     `json:"network,omitempty"`
	Write     []string `json:"write,omitempty"`
	Read      []string `json:"read,omitempty"`
	Exec      bool     `json:"exec,omitempty"`
	Sandboxes bool     `json:"sandboxes,omitempty"`
}

// Trusted returns the trust record of the plugin file name of the plugin
// dir dir; ok false when there is none (or no lock). A lock that cannot
// be read is an error: nothing of it is trusted.
func Trusted(dir, name string) (t Trust, ok bool, err error) {
	l, err := Read(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Trust{}, false, nil
	}
	if err != nil {
		return Trust{}, false, err
	}
	t, ok = l.Trusted[name]
	return t, ok, nil
}

// SetTrust records t for the plugin file name of the plugin dir dir in
// the dir's lock. A dir without a lock gets one that pins nothing
// (Unpinned): trusting a plugin does not pin its dir.
func SetTrust(dir, name string, t Trust) error {
	l, err := Read(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l = Lock{Unpinned: true}
	case err != nil:
		return fmt.Errorf("trust plugin %s: %w", name, err)
	}
	if l.Trusted == nil {
		l.Trusted = map[string]Trust{}
	}
	t.SHA256 = strings.ToLower(t.SHA256)
	l.Trusted[name] = t
	if err := Write(dir, l); err != nil {
		return fmt.Errorf("trust plugin %s: %w", name, err)
	}
	return nil
}
