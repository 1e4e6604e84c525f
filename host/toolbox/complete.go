package toolbox

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
)

// errIncomplete says a plugin file is not all there yet: an ELF binary
// whose headers point past its end, as a file being written in place (cp
// truncates, then writes) is.
var errIncomplete = errors.New("the binary is incomplete")

// checkComplete reports errIncomplete when the file at path is an ELF
// binary cut short: its section or program headers, or the data they
// describe, lie past its end. Other files (scripts, other formats) pass.
func checkComplete(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	magic := make([]byte, 4)
	if _, err := io.ReadFull(f, magic); err != nil || !bytes.Equal(magic, []byte(elf.ELFMAG)) {
		if fi.Size() < 4 {
			return fmt.Errorf("%w: %d bytes", errIncomplete, fi.Size())
		}
		return nil
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: %v", errIncomplete, err)
		}
		return nil // not a valid ELF file: its start says so
	}
	size := uint64(fi.Size())
	for _, p := range ef.Progs {
		if p.Off+p.Filesz > size {
			return fmt.Errorf("%w: a segment ends at %d of %d bytes", errIncomplete, p.Off+p.Filesz, size)
		}
	}
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_NULL && s.Offset+s.FileSize > size {
			return fmt.Errorf("%w: section %s ends at %d of %d bytes", errIncomplete, s.Name, s.Offset+s.FileSize, size)
		}
	}
	return nil
}
