package responses

import (
	"testing"

	"github.com/harness-dev/harness/host/llm"
)

// TestDefaultModelInTable: the default model is in the built-in model
// table under this provider, with a context window and image input.
func TestDefaultModelInTable(t *testing.T) {
	m, ok := llm.FindModel(llm.BuiltinModels(), Name, DefaultModel)
	if !ok || m.ContextWindow <= 0 || !m.Images {
		t.Errorf("built-in table has %+v (found %v) for %s %s; want a window and images", m, ok, Name, DefaultModel)
	}
}
