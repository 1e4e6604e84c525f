// Package settings reads the harness command's settings one way: each
// setting is declared once (its flag, its environment variable, its key in
// the config file, its default) and resolved by one rule.
//
// # Precedence
//
// A flag given on the command line wins; else a non-empty environment
// variable; else the key in the config file; else the default. The config
// file itself is named by its own setting (--config, HARNESS_CONFIG, else
// the default path the caller gives, $XDG_CONFIG_HOME/harness/config.toml
// in harness); a file named explicitly must exist, the default one may be
// missing.
//
// A list setting ([Set.List]: add-dirs, deny-read) takes the same rule
// as a whole: every --flag given (each adds one item), else the
// variable's items separated by colons, else the file's array of strings,
// else empty; sources are not merged.
//
// # Errors
//
// A bad value anywhere is one error naming where it came from: the flag
// ("--max-steps"), the variable ("HARNESS_MAX_STEPS") or the file and key
// ("config file /home/me/.config/harness/config.toml: max-steps"). A key
// the file has but nobody declared is an error naming the key (and the
// known ones), so a typo is never silently ignored. Values are read as
// text and parsed by the same parser whatever their source: `max-steps =
// 50` and `max-steps = "50"` mean the same, `max-steps = 1.5` is refused.
// [Set.Source] tells the caller where a setting's value came from, so
// that its own checks (a range, an enum) can name the source too.
//
// # Secrets
//
// Errors about the file name its path, the line and the key, never the
// text around a TOML syntax error, so a secret pasted in the wrong place
// does not end up in a terminal or a log. harness reads API keys from the
// environment only; the file has no key for them.
//
// # Ownership
//
// A config file another user could have written — owned by a user other
// than this one or root, or writable by group or others — is refused with
// one line naming it, its owner, its mode and the fix (package ownership),
// checked on the descriptor that is read.
//
// # The parser
//
// The file is TOML, read with github.com/BurntSushi/toml (v1.6.0): the
// reference Go implementation of TOML 1.0, no dependencies beyond the
// standard library, maintained since 2013, and its MetaData reports every
// key that was not decoded — which is what makes unknown keys an error
// without a second parse. TOML over JSON because people edit this file by
// hand and want comments.
package settings
