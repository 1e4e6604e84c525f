package llmproc

// Starts counts the processes p has started, for the tests.
func (p *Proc) Starts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts
}
