package session

import (
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
)

// compact applies a context/compact: the model's history becomes the
// summary's context message, the last user message if the kept part does
// not hold it, then the messages from p.Keep on. msgs gets a new array:
// slices handed out before keep theirs.
func (s *Session) compact(p event.Compact) {
	first := len(s.msgs)
	for i, q := range s.seqs {
		if q >= 0 && q >= p.Keep {
			first = i
			break
		}
	}
	msgs := make([]llm.Message, 0, 2+len(s.msgs)-first)
	seqs := make([]int64, 0, cap(msgs))
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Text: p.ContextText(s.todos)})
	seqs = append(seqs, -1)
	if s.lastUserSeq >= 0 && s.lastUserSeq < p.Keep {
		msgs = append(msgs, s.lastUser)
		seqs = append(seqs, -1)
	}
	msgs = append(msgs, s.msgs[first:]...)
	seqs = append(seqs, s.seqs[first:]...)
	s.msgs, s.seqs = msgs, seqs
	s.usage, s.usageAt = 0, -1
	if p.Limit > 0 {
		s.limit = p.Limit
	}
}
