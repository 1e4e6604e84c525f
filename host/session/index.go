package session

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
)

// IndexBackend is an optional capability of a Backend that keeps an index
// of its sessions' summaries beside the logs, so that [Store.List] reads
// one summary per session instead of every event of every log. The index
// is a cache, never the truth: a session's writer puts its summary (see
// the package doc), List uses an entry only when it is current to the
// log's last record, and reads the log otherwise.
type IndexBackend interface {
	// PutSummary stores s as session id's entry, replacing the one before.
	PutSummary(id string, s IndexedSummary) error
	// Index returns, by id, the number of records of every session's log
	// (the Next its writer has; its ids are those IDs returns), and the
	// entries PutSummary stored, of those sessions or others.
	Index() (lens map[string]int64, sums map[string]IndexedSummary, err error)
}

// IndexedSummary is a session's [Summary] as an [IndexBackend] stores it,
// in a JSON shape of its own: the summary of the log's records [0, Next).
type IndexedSummary struct {
	// Next is the log's Next when the summary was made: it is current
	// while the log holds Next records.
	Next        int64               `json:"next"`
	Cwd         string              `json:"cwd"`
	Parent      string              `json:"parent,omitempty"`
	ForkSeq     int64               `json:"forkSeq,omitempty"`
	CreatedAt   time.Time           `json:"createdAt"`
	UpdatedAt   time.Time           `json:"updatedAt"`
	FirstPrompt string              `json:"firstPrompt,omitempty"`
	Turns       int                 `json:"turns,omitempty"`
	Sandbox     event.SandboxPolicy `json:"sandbox"`
	// Usage is Summary.Usage as a list, by provider then model.
	Usage []ModelUsage `json:"usage,omitempty"`
}

// ModelUsage is the usage of one model in an [IndexedSummary].
type ModelUsage struct {
	Provider string      `json:"provider,omitempty"`
	Model    string      `json:"model,omitempty"`
	Usage    event.Usage `json:"usage"`
}

// Indexed returns s as an index keeps it, current to a log of next records.
func Indexed(s Summary, next int64) IndexedSummary {
	x := IndexedSummary{Next: next, Cwd: s.Cwd, Parent: s.Parent, ForkSeq: s.ForkSeq,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, FirstPrompt: s.FirstPrompt, Turns: s.Turns, Sandbox: s.Sandbox}
	for _, m := range slices.SortedFunc(maps.Keys(s.Usage), func(a, b Model) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Name, b.Name))
	}) {
		x.Usage = append(x.Usage, ModelUsage{Provider: m.Provider, Model: m.Name, Usage: s.Usage[m]})
	}
	return x
}

// Summary returns the summary of session id that x stores.
func (x IndexedSummary) Summary(id string) Summary {
	s := Summary{ID: id, Cwd: x.Cwd, Parent: x.Parent, ForkSeq: x.ForkSeq, CreatedAt: x.CreatedAt,
		UpdatedAt: x.UpdatedAt, FirstPrompt: x.FirstPrompt, Turns: x.Turns, Sandbox: x.Sandbox}
	for _, u := range x.Usage {
		if s.Usage == nil {
			s.Usage = map[Model]event.Usage{}
		}
		m := Model{Provider: u.Provider, Name: u.Model}
		s.Usage[m] = s.Usage[m].Add(u.Usage)
	}
	return s
}

// plausible reports whether x could be what a writer stored: List reads
// the log of a session whose entry is not.
func (x IndexedSummary) plausible() bool {
	return x.Next >= 0 && x.Turns >= 0 && x.FirstPrompt == summarize(x.FirstPrompt)
}

// fold is a log's Summary built one event at a time: the one List makes
// reading a log and the one a Session keeps as it appends, so that both
// say the same of the same records.
type fold struct {
	next     int64 // events folded: the log's Next
	last     time.Time
	turns    int
	prompt   string
	prompted bool
	sandbox  event.SandboxPolicy
	model    Model
	usage    map[Model]event.Usage
}

// add folds in the event at seq next, logged at at; p is its payload, nil
// for a type the host does not know.
func (f *fold) add(at time.Time, p event.Payload) {
	f.next++
	f.last = at
	switch p := p.(type) {
	case event.TurnStart:
		f.turns++
	case event.SandboxPolicy:
		f.sandbox = p
	case event.ConfigOption:
		if p.ID == "model" {
			f.model = Model{Provider: p.Provider, Name: p.Value}
		}
	case event.TurnEnd:
		if p.Usage != nil {
			if f.usage == nil {
				f.usage = map[Model]event.Usage{}
			}
			f.usage[f.model] = f.usage[f.model].Add(*p.Usage)
		}
	case event.UserMessage:
		if !f.prompted {
			f.prompted = true
			f.prompt = summarize(userText(p.Content))
		}
	}
}

// addRecord folds in r as read from a log, decoding only the payloads the
// summary needs; where names the log in a CorruptError.
func (f *fold) addRecord(where string, r eventlog.Record) error {
	var p event.Payload
	switch t := event.Type(r.Type); t {
	case event.TypeTurnStart:
		p = event.TurnStart{} // only counted
	case event.TypeUserMessage:
		if f.prompted {
			break
		}
		fallthrough
	case event.TypeConfigOption, event.TypeTurnEnd, event.TypeSandboxPolicy:
		var err error
		if p, err = decodePayload(t, r.Data); err != nil {
			return &eventlog.CorruptError{Path: where, Line: int(r.Seq) + 2, Err: err}
		}
	}
	f.add(r.Time, p)
	return nil
}

// summary returns the summary of the log with header h and the events
// folded so far. It shares nothing with f.
func (f *fold) summary(h eventlog.Header) Summary {
	s := Summary{ID: h.ID, Cwd: h.Cwd, Parent: h.Parent, ForkSeq: h.ForkSeq, CreatedAt: h.CreatedAt,
		UpdatedAt: h.CreatedAt, FirstPrompt: f.prompt, Turns: f.turns, Sandbox: f.sandbox, Usage: maps.Clone(f.usage)}
	if !f.last.IsZero() {
		s.UpdatedAt = f.last
	}
	return s
}
