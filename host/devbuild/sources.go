package devbuild

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Sources returns the folders under root that hold a Go main package (a
// main.go saying package main), absolute; none when root does not exist.
func Sources(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list plugin sources: %w", err)
	}
	var out []string
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, "main.go")); err == nil && strings.Contains(string(b), "package main") {
			abs, err := filepath.Abs(dir)
			if err != nil {
				return nil, err
			}
			out = append(out, abs)
		}
	}
	return out, nil
}
