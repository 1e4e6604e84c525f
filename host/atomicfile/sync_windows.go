package atomicfile

// syncDir does nothing on Windows: a folder cannot be fsynced there, and
// NTFS journals the rename.
func syncDir(string) error { return nil }
