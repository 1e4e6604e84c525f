package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/harness-dev/harness/host/atomicfile"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/ownership"
)

// Events reads session id's events as logged so far, without taking the
// writer's hold: a session another process is writing is read as it
// stands.
func (st *Store) Events(id string) ([]event.Event, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("read session %q: not a valid session id", id)
	}
	var out []event.Event
	_, err := st.backend().Read(id, 0, func(r eventlog.Record) error {
		out = append(out, event.Event{Seq: r.Seq, Time: r.Time, Type: event.Type(r.Type), Data: append([]byte(nil), r.Data...)})
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read session %s: %w", id, ErrNotFound)
	}
	return out, err
}

// Export writes session id's log to w as a JSONL log file holds it (the
// header line, then one line per event), whatever the store's backend: the
// file Import, or a JSONL store, reads back. A session being written is
// exported as it stands. The bytes of its images (blobs) are not in the
// log: ExportBlobs writes them.
func (st *Store) Export(id string, w io.Writer) error {
	if !ValidID(id) {
		return fmt.Errorf("export session %q: not a valid session id", id)
	}
	h, err := st.backend().Read(id, 0, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("export session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("export session %s: %w", id, err)
	}
	bw := bufio.NewWriter(w)
	line, err := eventlog.MarshalHeader(h)
	if err != nil {
		return fmt.Errorf("export session %s: %w", id, err)
	}
	bw.Write(append(line, '\n'))
	if _, err := st.backend().Read(id, 0, func(r eventlog.Record) error {
		line, err := eventlog.MarshalRecord(r)
		if err != nil {
			return err
		}
		_, err = bw.Write(append(line, '\n'))
		return err
	}); err != nil {
		return fmt.Errorf("export session %s: %w", id, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export session %s: %w", id, err)
	}
	return nil
}

// ExportBlobs writes the blobs session id's log names into the folder
// dir (made 0700 when there is one to write; files 0600, each named by
// its hash), the layout Import reads back (BlobsBeside of the exported
// log), and returns how many it wrote and how many the store lacks.
func (st *Store) ExportBlobs(id, dir string) (written, missing int, err error) {
	evs, err := st.Events(id)
	if err != nil {
		return 0, 0, fmt.Errorf("export the images of session %s: %w", id, err)
	}
	src := st.blobSource(id)
	seen := map[string]bool{}
	for _, ev := range evs {
		p, err := ev.Decode()
		if err != nil {
			continue // a type this host does not know names no blob it keeps
		}
		for _, hash := range blobsOf(p) {
			if seen[hash] {
				continue
			}
			seen[hash] = true
			data, err := src.Blob(hash)
			if errors.Is(err, fs.ErrNotExist) {
				missing++
				continue
			}
			if err != nil {
				return written, missing, fmt.Errorf("export the images of session %s: %w", id, err)
			}
			if err := ownership.MkdirAll(dir); err != nil {
				return written, missing, fmt.Errorf("export the images of session %s: %w", id, err)
			}
			if err := atomicfile.WriteFile(filepath.Join(dir, hash), data, 0o600); err != nil {
				return written, missing, fmt.Errorf("export the images of session %s: %w", id, err)
			}
			written++
		}
	}
	return written, missing, nil
}

// Import adds the session of the JSONL log file at path (as Export or a
// JSONL store writes it) to the store, under its own id, and returns the
// id. The file is read as a JSONL store opens a log: a torn last line is
// left out, any other damage, or an event Open would refuse, refuses the
// file. An id the store already
// has is refused (fs.ErrExist) and nothing is written. The images the
// log names are taken from BlobsBeside(path) (as ExportBlobs, or a JSONL
// store, keeps them) and stored before the log: one that is not there is
// left out (the events name every image in their text all the same), one
// whose bytes do not hash to its name refuses the file.
func (st *Store) Import(path string) (string, error) {
	var recs []eventlog.Record
	h, _, err := eventlog.Read(path, func(r eventlog.Record) error {
		r.Data = append([]byte(nil), r.Data...)
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("import %s: %w", path, err)
	}
	// Refuse what Open would refuse (an event outside a turn, a payload
	// that does not decode) before anything is written.
	scratch := &Session{lastUserSeq: -1, usageAt: -1}
	for _, r := range recs {
		if err := scratch.replay(path, r); err != nil {
			return "", fmt.Errorf("import %s: %w", path, err)
		}
	}
	if _, err := st.backend().Read(h.ID, 0, nil); err == nil {
		return "", fmt.Errorf("import session %s: %w", h.ID, fs.ErrExist)
	}
	src := &Session{header: h, blobs: BlobsBeside(path)}
	dst := st.blobSource(h.ID)
	for _, ev := range scratch.events {
		p, err := ev.Decode()
		if err != nil {
			continue
		}
		if err := dst.copyBlobs(p, src); err != nil {
			return "", fmt.Errorf("import %s: %w", path, err)
		}
	}
	log, err := st.backend().Create(h)
	if err != nil {
		return "", fmt.Errorf("import session %s: %w", h.ID, err)
	}
	for _, r := range recs {
		if err := log.Append(r); err != nil {
			log.Close()
			return "", fmt.Errorf("import session %s: %w", h.ID, err)
		}
	}
	if ib := st.indexBackend(); ib != nil {
		_ = ib.PutSummary(h.ID, Indexed(scratch.sum.summary(h), scratch.sum.next)) // a cache: see putIndexLocked
	}
	if err := log.Close(); err != nil {
		return "", fmt.Errorf("import session %s: %w", h.ID, err)
	}
	return h.ID, nil
}
