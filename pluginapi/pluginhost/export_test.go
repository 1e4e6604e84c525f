package pluginhost

// CloseStdin closes the host's end of a launched plugin's stdin, as the
// host's death would.
func CloseStdin(c *Client) {
	c.run.mu.Lock()
	defer c.run.mu.Unlock()
	if c.run.stdin != nil {
		_ = c.run.stdin.Close()
		c.run.stdin = nil
	}
}
