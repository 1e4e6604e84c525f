package plugincache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/harness-dev/harness/host/atomicfile"
)

// describeSuffix names an entry's stored description: DIR/<sha256>.describe.json.
const describeSuffix = ".describe.json"

// maxDescription bounds a stored description read back (a plugin's tools
// and schemas; far below this in practice).
const maxDescription = 4 << 20

// storedDescription is the file format of a stored description. The
// description itself is opaque JSON (the caller's type, so fields added to
// it later come along); Check is the sha256 of those bytes and SHA256 the
// entry it describes, both checked on every read.
type storedDescription struct {
	SHA256      string          `json:"sha256"`
	Check       string          `json:"check"`
	Description json.RawMessage `json:"description"`
}

// DescriptionPath returns where the description of the entry sum is stored.
func (c *Cache) DescriptionPath(sum string) string {
	return filepath.Join(c.dir, sum+describeSuffix)
}

// LoadDescription returns the description stored for the entry sum by
// StoreDescription, as the JSON given then. ok is false when there is
// none, or it is unreadable, damaged (its check sum does not match its
// bytes) or stored for another entry: the caller describes the plugin
// again and stores the result, which replaces the bad file.
func (c *Cache) LoadDescription(sum string) (desc []byte, err error) {
	if !isSum(sum) {
		return nil, fmt.Errorf("load plugin description: %q is not a sha256", sum)
	}
	f, err := os.Open(c.DescriptionPath(sum))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxDescription+1)); err != nil {
		return nil, fmt.Errorf("read plugin description %s: %w", short(sum), err)
	}
	if buf.Len() > maxDescription {
		return nil, fmt.Errorf("plugin description %s is larger than %d bytes", short(sum), maxDescription)
	}
	var sd storedDescription
	if err := json.Unmarshal(buf.Bytes(), &sd); err != nil {
		return nil, fmt.Errorf("decode plugin description %s: %w", short(sum), err)
	}
	if sd.SHA256 != sum {
		return nil, fmt.Errorf("plugin description %s is stored for %s", short(sum), short(sd.SHA256))
	}
	h := sha256.Sum256(sd.Description)
	if sd.Check != hex.EncodeToString(h[:]) || len(sd.Description) == 0 {
		return nil, fmt.Errorf("plugin description %s is damaged", short(sum))
	}
	return sd.Description, nil
}

// StoreDescription stores desc, a JSON value, as the description of the
// entry sum, replacing any by a rename (0600 in the 0700 dir).
func (c *Cache) StoreDescription(sum string, desc []byte) error {
	if !isSum(sum) {
		return fmt.Errorf("store plugin description: %q is not a sha256", sum)
	}
	if !json.Valid(desc) {
		return errors.New("store plugin description: not JSON")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, desc); err != nil {
		return fmt.Errorf("store plugin description: %w", err)
	}
	h := sha256.Sum256(compact.Bytes())
	b, err := json.Marshal(storedDescription{SHA256: sum, Check: hex.EncodeToString(h[:]), Description: compact.Bytes()})
	if err != nil {
		return fmt.Errorf("store plugin description: %w", err)
	}
	if err := atomicfile.WriteFile(c.DescriptionPath(sum), b, 0o600); err != nil {
		return fmt.Errorf("store plugin description: %w", err)
	}
	return nil
}

// ForgetDescription removes the stored description of the entry sum (one
// that proved wrong).
func (c *Cache) ForgetDescription(sum string) {
	if isSum(sum) {
		os.Remove(c.DescriptionPath(sum))
	}
}
