package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Network is what a command may reach: NetworkOff (loopback only),
// NetworkOn (the host's network), or an allow-list of hosts that a
// command reaches only through the proxy harness runs (the bash plugin,
// package sandbox/netproxy), from a network namespace of its own.
//
// An allow-list's value is its entries in canonical form joined by ","
// ("127.0.0.1,registry.npmjs.org,*.example.com:443"): make one with
// ParseNetwork or AllowList, never by conversion. An entry is
//
//   - a host name with a domain ("registry.npmjs.org"; of single labels
//     only "localhost", so that a typo of off or on is no list): that
//     name exactly, any port;
//   - "*.domain": every name below domain on a label boundary
//     ("a.domain", "a.b.domain"), not domain itself;
//   - an IP address ("127.0.0.1", "::1", "[::1]"): that address only when
//     asked for by it, any port;
//   - any of these with ":port" ("example.com:443", "[::1]:8080"): that
//     port only.
//
// Names are compared lower-case without a trailing dot. Its JSON is
// "off", "on" or the list of entries.
type Network string

// The networks.
const (
	NetworkOff Network = "off"
	NetworkOn  Network = "on"
)

// maxHosts bounds an allow-list.
const maxHosts = 256

// ParseNetwork reads the network setting as a flag or an environment
// variable spells it: "off" (and "", the default), "on", or a
// comma-separated allow-list ("registry.npmjs.org, *.example.com").
func ParseNetwork(s string) (Network, error) {
	switch t := strings.TrimSpace(s); t {
	case "", string(NetworkOff):
		return NetworkOff, nil
	case string(NetworkOn):
		return NetworkOn, nil
	default:
		return AllowList(strings.Split(t, ",")...)
	}
}

// AllowList makes the allow-list of hosts (entries as Network says),
// canonical, without duplicates, in their order.
func AllowList(hosts ...string) (Network, error) {
	if len(hosts) > maxHosts {
		return "", fmt.Errorf("network allow-list: %d hosts, at most %d", len(hosts), maxHosts)
	}
	var out []string
	for _, h := range hosts {
		e, err := parseEntry(h)
		if err != nil {
			return "", fmt.Errorf("network allow-list: %w", err)
		}
		if s := e.String(); !containsString(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return "", errors.New("network allow-list: no host (want off for no network)")
	}
	return Network(strings.Join(out, ",")), nil
}

func containsString(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// IsAllowList reports whether n is an allow-list.
func (n Network) IsAllowList() bool { return n != NetworkOff && n != NetworkOn && n != "" }

// Hosts is n's allow-list, nil for off and on.
func (n Network) Hosts() []string {
	if !n.IsAllowList() {
		return nil
	}
	return strings.Split(string(n), ",")
}

// Validate checks that n is off, on or a canonical allow-list.
func (n Network) Validate() error {
	switch {
	case n == NetworkOff || n == NetworkOn:
		return nil
	case n == "":
		return errors.New("unknown network \"\" (want off, on or a list of hosts)")
	}
	canon, err := AllowList(n.Hosts()...)
	if err != nil {
		return err
	}
	if canon != n {
		return fmt.Errorf("network allow-list %q is not canonical (want %q)", string(n), string(canon))
	}
	return nil
}

// Describe is n for a person: "off", "on", "allow-list a,*.b".
func (n Network) Describe() string {
	if n.IsAllowList() {
		return "allow-list " + string(n)
	}
	return string(n)
}

// Allows reports whether a connection to host (a name, an IP address,
// an IPv6 one in brackets or not) at port may be made: always with
// NetworkOn, never with NetworkOff, else when an entry of the
// allow-list matches. A host that is neither a valid name nor an IP
// address matches nothing.
func (n Network) Allows(host string, port int) bool {
	switch {
	case n == NetworkOn:
		return true
	case !n.IsAllowList() || port < 1 || port > 65535:
		return false
	}
	want, err := parseHost(host)
	if err != nil || want.wild {
		return false
	}
	for _, h := range n.Hosts() {
		e, err := parseEntry(h)
		if err != nil || e.port != 0 && e.port != port {
			continue
		}
		switch {
		case e.ip.IsValid() || want.ip.IsValid():
			if e.ip == want.ip {
				return true
			}
		case e.wild:
			if strings.HasSuffix(want.name, "."+e.name) {
				return true
			}
		case e.name == want.name:
			return true
		}
	}
	return false
}

// MarshalJSON is "off", "on", or the allow-list's entries.
func (n Network) MarshalJSON() ([]byte, error) {
	if n.IsAllowList() {
		return json.Marshal(n.Hosts())
	}
	return json.Marshal(string(n))
}

// UnmarshalJSON reads "off", "on", or a list of entries (made canonical).
func (n *Network) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if s != string(NetworkOff) && s != string(NetworkOn) {
			return fmt.Errorf("unknown network %q (want off, on or a list of hosts)", s)
		}
		*n = Network(s)
		return nil
	}
	var hosts []string
	if err := json.Unmarshal(b, &hosts); err != nil {
		return errors.New("network: want \"off\", \"on\" or a list of hosts")
	}
	list, err := AllowList(hosts...)
	if err != nil {
		return err
	}
	*n = list
	return nil
}

// entry is one host of an allow-list: an IP address, or a name (below
// which every name matches when wild); port 0 is any.
type entry struct {
	ip   netip.Addr
	name string
	wild bool
	port int
}

// String is e's canonical form.
func (e entry) String() string {
	var h string
	switch {
	case e.ip.Is6():
		h = "[" + e.ip.String() + "]"
	case e.ip.IsValid():
		h = e.ip.String()
	case e.wild:
		h = "*." + e.name
	default:
		h = e.name
	}
	if e.port != 0 {
		h += ":" + strconv.Itoa(e.port)
	}
	return h
}

// parseEntry reads an allow-list entry: a host (see parseHost),
// optionally with ":port".
func parseEntry(s string) (entry, error) {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		return entry{}, fmt.Errorf("%.40q…: too long for a host", s)
	}
	host, port := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return entry{}, fmt.Errorf("%q: no ] after the IPv6 address", s)
		}
		host, port = s[:end+1], s[end+1:]
		if port != "" {
			var ok bool
			if port, ok = strings.CutPrefix(port, ":"); !ok {
				return entry{}, fmt.Errorf("%q: want [address]:port", s)
			}
		}
	case strings.Count(s, ":") == 1:
		host, port, _ = strings.Cut(s, ":")
	}
	e, err := parseHost(host)
	if err != nil {
		return entry{}, fmt.Errorf("%q: %w", s, err)
	}
	if port != "" || strings.HasSuffix(s, ":") {
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 || strconv.Itoa(p) != port {
			return entry{}, fmt.Errorf("%q: port %q is not a number from 1 to 65535", s, port)
		}
		e.port = p
	}
	return e, nil
}

// parseHost reads a host without port: an IP address (an IPv6 one in
// brackets or not, no zone; an IPv4-mapped one is its IPv4 address), or
// a DNS name (letters, digits, '-' and '_' in labels of 1 to 63, 253 at
// most, its last label not all digits), optionally "*." and a name.
func parseHost(s string) (entry, error) {
	if s == "" {
		return entry{}, errors.New("no host")
	}
	if strings.HasPrefix(s, "[") {
		inner, ok := strings.CutSuffix(s[1:], "]")
		ip, err := netip.ParseAddr(inner)
		if !ok || err != nil || !ip.Is6() || ip.Zone() != "" {
			return entry{}, errors.New("not an IPv6 address in brackets")
		}
		return entry{ip: ip.Unmap()}, nil
	}
	if ip, err := netip.ParseAddr(s); err == nil {
		if ip.Zone() != "" {
			return entry{}, errors.New("an IPv6 zone is not allowed")
		}
		return entry{ip: ip.Unmap()}, nil
	}
	name := strings.TrimSuffix(strings.ToLower(s), ".")
	var e entry
	if rest, ok := strings.CutPrefix(name, "*."); ok {
		e.wild, name = true, rest
	}
	if name == "*" || name == "" && e.wild {
		return entry{}, errors.New("* is every host: use network on")
	}
	if len(name) > 253 {
		return entry{}, errors.New("a host name has at most 253 characters")
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return entry{}, errors.New("not a host name (empty or over-long label)")
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return entry{}, fmt.Errorf("not a host name (character %q)", c)
			}
		}
	}
	if last := labels[len(labels)-1]; strings.Trim(last, "0123456789") == "" {
		return entry{}, errors.New("not a host name nor an IP address (its last label is a number)")
	}
	if len(labels) == 1 && name != "localhost" {
		// A typo of off or on must not become a list; a bare intranet
		// name depends on the resolver's search domains anyway.
		return entry{}, errors.New("not off, on, or a host with a domain (registry.npmjs.org, *.example.com, 127.0.0.1, localhost)")
	}
	e.name = name
	return e, nil
}
