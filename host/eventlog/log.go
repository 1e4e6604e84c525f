package eventlog

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/harness-dev/harness/host/atomicfile"
	"github.com/harness-dev/harness/host/ownership"
)

// what is what a log file is called in a refusal of package ownership.
const what = "session log"

// Log is an open log file with its lock held. Create or Open one; Close it.
type Log struct {
	path   string
	header Header
	repair Repair

	mu sync.Mutex
	// mu guards the fields below.
	f     *os.File // nil once closed
	next  int64    // seq the next Append must carry
	size  int64    // file size after the last whole line
	dirty bool     // appended since the last fsync
	err   error    // sticky: a failed write breaks the log
	buf   []byte   // line buffer, reused
}

// Create creates the log at path, which must not exist, with header h, and
// locks it. The parent directory is created (0700, as are its missing
// parents, whatever the umask) if missing; the file is created 0600. The header and the directory entry are fsynced before Create
// returns.
func Create(path string, h Header) (*Log, error) {
	if h.Version == 0 {
		h.Version = Version
	}
	if h.Version != Version {
		return nil, fmt.Errorf("create %s: %w %d (this harness writes version %d)", path, ErrVersion, h.Version, Version)
	}
	line, err := encodeHeader(h)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := ownership.MkdirAll(dir); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	// The file appears whole or not at all, and never replaces another:
	// the header is written and fsynced in a temporary file, linked into
	// place and the folder fsynced (atomicfile.WriteNew).
	if err := atomicfile.WriteNew(path, line, 0o600); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, err // *fs.PathError names the file; errors.Is(err, fs.ErrExist) holds
		}
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	f, err := openRegular(path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if err := lock(f); err != nil {
		f.Close() // another process got the new file first: leave it to it
		return nil, err
	}
	h.CreatedAt = h.CreatedAt.UTC()
	return &Log{path: path, header: h, f: f, size: int64(len(line))}, nil
}

// Open opens the existing log at path, locks it and replays it: visit (if
// not nil) is called with every record in seq order before Open returns. A
// torn tail is cut off and the cut fsynced (see [Log.Repaired]) — but only
// once every record was visited without error. An error from visit aborts
// Open and is returned as is; the file is then left untouched.
//
// Record.Data aliases a buffer Open never reuses: visit may keep it, but
// must not modify it.
//
// A file that does not exist yields an error for which
// errors.Is(err, fs.ErrNotExist) holds.
func Open(path string, visit func(Record) error) (*Log, error) {
	f, err := openRegular(path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return nil, err // names the file
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, err
	}
	data, err := readAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	s, err := scan(path, data, visit)
	if err != nil {
		f.Close()
		return nil, err
	}
	if !s.repair.IsZero() {
		if err := f.Truncate(s.end); err != nil {
			f.Close()
			return nil, fmt.Errorf("cut torn tail of %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, fmt.Errorf("cut torn tail of %s: sync: %w", path, err)
		}
	}
	return &Log{path: path, header: s.header, repair: s.repair, f: f, next: s.next, size: s.end}, nil
}

// Read replays the log at path without locking or writing it: the file may
// be in use by a writer in another process. Read applies Open's rules, but a
// torn tail is only reported in the returned Repair, never cut. Record.Data
// may be kept and must not be modified, as with Open.
func Read(path string, visit func(Record) error) (Header, Repair, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return Header{}, Repair{}, err
	}
	defer f.Close()
	data, err := readAll(f)
	if err != nil {
		return Header{}, Repair{}, fmt.Errorf("read %s: %w", path, err)
	}
	s, err := scan(path, data, visit)
	if err != nil {
		return Header{}, Repair{}, err
	}
	return s.header, s.repair, nil
}

// Path returns the file's path.
func (l *Log) Path() string { return l.path }

// Header returns the log's header.
func (l *Log) Header() Header { return l.header }

// Repaired reports what Open cut from the tail; zero for a clean file.
func (l *Log) Repaired() Repair { return l.repair }

// Next returns the seq the next Append must carry: the number of records.
func (l *Log) Next() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// Append writes r as one line with a single write(2). r.Seq must be
// [Log.Next]; r.Type must be a valid type and r.Data valid JSON. Append does
// not fsync. If the write fails, Append cuts the partial line off and the
// log refuses every later Append: close it and open it again.
func (l *Log) Append(r Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	if r.Seq != l.next {
		return fmt.Errorf("append to %s: seq %d, want %d", l.path, r.Seq, l.next)
	}
	if err := checkRecord(r); err != nil {
		return fmt.Errorf("append to %s: seq %d: %w", l.path, r.Seq, err)
	}
	l.buf = appendRecord(l.buf[:0], r)
	n, err := l.f.Write(l.buf)
	if err != nil {
		l.err = fmt.Errorf("append to %s: %w", l.path, err)
		if n > 0 {
			if terr := l.f.Truncate(l.size); terr != nil {
				l.err = fmt.Errorf("%w; cut partial line: %v", l.err, terr)
			}
		}
		return l.err
	}
	if cap(l.buf) > 64<<10 {
		l.buf = nil // don't pin one huge record's buffer
	}
	l.next++
	l.size += int64(n)
	l.dirty = true
	return nil
}

// Sync fsyncs everything appended so far. It costs nothing when nothing was
// appended since the last Sync.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	return l.sync()
}

func (l *Log) sync() error {
	if !l.dirty {
		return nil
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", l.path, err)
	}
	l.dirty = false
	return nil
}

// Close syncs the log, closes the file and releases the lock. Closing a
// closed log returns nil.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	var err error
	if l.err == nil {
		err = l.sync()
	}
	if cerr := l.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", l.path, cerr)
	}
	l.f = nil
	return err
}

// usable reports why the log cannot be written, if it cannot.
func (l *Log) usable() error {
	if l.f == nil {
		return fmt.Errorf("%s: %w", l.path, ErrClosed)
	}
	if l.err != nil {
		return fmt.Errorf("%w (%w)", ErrClosed, l.err)
	}
	return nil
}

// ReadHeader reads only the header of the log at path, without locking it.
func ReadHeader(path string) (Header, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return Header{}, err // names the file
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
	if err != nil {
		return Header{}, &CorruptError{Path: path, Line: 1, Err: fmt.Errorf("read header: %w", err)}
	}
	h, err := decodeHeader(line[:len(line)-1])
	if err != nil {
		return Header{}, &CorruptError{Path: path, Line: 1, Err: err}
	}
	return h, nil
}
