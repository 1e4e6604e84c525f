//go:build !windows

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// syncDir fsyncs the folder dir, so that an entry renamed or linked into
// it is durable. A file system that cannot (EINVAL, ENOTSUP) is skipped.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
