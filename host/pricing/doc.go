// Package pricing counts a session's tokens and prices them: Of reads a
// session's events (the usage of each step, compactions, model switches)
// into what the context holds now and what the steps cost, each at the
// prices of the model it ran on; Summary prices a listed session by the
// models its log names (llm.ModelInfo prices: the configured models', else
// the built-in table's). A step whose model has no known prices, or another
// currency, leaves the sum unpriced rather than guessed.
package pricing
