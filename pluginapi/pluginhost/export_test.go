package pluginhost

// CloseStdin closes the host's end of a launched plugin's stdin, as the
// host's death would.
func CloseStdin(c *Client) {
	if p := c.run.Process(); p != nil {
		p.CloseStdin()
	}
}
