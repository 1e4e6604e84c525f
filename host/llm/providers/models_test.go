package providers_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/providers"
)

// named is a provider known by its name.
type named string

func (named) Stream(context.Context, llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(func(llm.Chunk, error) bool) {}
}

// TestSet: the default provider serves its models and those naming none;
// another provider is opened once, on first use; a failed open is tried
// again; without an opener the default serves all.
func TestSet(t *testing.T) {
	t.Parallel()
	opened := map[string]int{}
	fail := true
	s := &providers.Set{Default: named("deepseek"), DefaultProvider: "deepseek", Open: func(m llm.ModelInfo) (providers.Model, error) {
		opened[m.Provider]++
		if m.Provider == "anthropic" && fail {
			fail = false
			return nil, errors.New("no key")
		}
		return named(m.Provider), nil
	}}
	for _, tc := range []struct {
		provider, want string
		err            bool
	}{
		{"deepseek", "deepseek", false}, {"", "deepseek", false},
		{"openai", "openai", false}, {"openai", "openai", false},
		{"anthropic", "", true}, {"anthropic", "anthropic", false}, {"anthropic", "anthropic", false},
	} {
		p, err := s.For(llm.ModelInfo{Provider: tc.provider, Name: "m"})
		if (err != nil) != tc.err || !tc.err && p != named(tc.want) {
			t.Errorf("For(%q) = %v, %v; want %q (error %v)", tc.provider, p, err, tc.want, tc.err)
		}
	}
	if opened["openai"] != 1 || opened["anthropic"] != 2 || opened["deepseek"] != 0 {
		t.Errorf("opened %v; want openai once, anthropic twice (once failed), deepseek never", opened)
	}
	plain := &providers.Set{Default: named("script"), DefaultProvider: "script"}
	if p, err := plain.For(llm.ModelInfo{Provider: "openai"}); err != nil || p != named("script") {
		t.Errorf("without an opener For = %v, %v; want the default", p, err)
	}
}
