package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseNetwork(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, err string
	}{
		{in: "", want: "off"},
		{in: " off ", want: "off"},
		{in: "on", want: "on"},
		{in: "registry.npmjs.org", want: "registry.npmjs.org"},
		{in: "Registry.NPMJS.org., *.Example.com ,127.0.0.1", want: "registry.npmjs.org,*.example.com,127.0.0.1"},
		{in: "a.b,a.b,A.B.", want: "a.b"},
		{in: "example.com:443,[::1]:8080,::1,[::ffff:127.0.0.1]", want: "example.com:443,[::1]:8080,[::1],127.0.0.1"},
		{in: "localhost,under_score.internal,xn--bcher-kva.example", want: "localhost,under_score.internal,xn--bcher-kva.example"},
		{in: "a.b,", err: "no host"},
		{in: ",", err: "no host"},
		{in: "*", err: "use network on"},
		{in: "*.", err: "use network on"},
		{in: "a.*.b", err: "character '*'"},
		{in: "exa mple.com", err: "character ' '"},
		{in: "bücher.example", err: "not a host name"},
		{in: "a..b", err: "empty or over-long label"},
		{in: "127.1", err: "its last label is a number"},
		{in: "2130706433", err: "its last label is a number"},
		{in: "a.b:0", err: "port \"0\""},
		{in: "a.b:65536", err: "port \"65536\""},
		{in: "a.b:+80", err: "port \"+80\""},
		{in: "a.b:", err: "port \"\""},
		{in: "[::1", err: "no ]"},
		{in: "[::1]x", err: "want [address]:port"},
		{in: "[127.0.0.1]", err: "not an IPv6 address in brackets"},
		{in: "fe80::1%eth0", err: "zone"},
		{in: "a.b,off", err: "not off, on, or a host with a domain"},
		{in: "of", err: "not off, on, or a host with a domain"},
		{in: "registry", err: "not off, on, or a host with a domain"},
		{in: strings.Repeat("a.b,", 300) + "a.b", err: "at most 256"},
		{in: strings.Repeat("a", 64) + ".b", err: "over-long label"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			n, err := ParseNetwork(tt.in)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseNetwork(%q) = %q, %v; want an error with %q", tt.in, n, err, tt.err)
				}
				return
			case err != nil:
				t.Fatalf("ParseNetwork(%q): %v", tt.in, err)
			case string(n) != tt.want:
				t.Fatalf("ParseNetwork(%q) = %q, want %q", tt.in, n, tt.want)
			}
			if err := n.Validate(); err != nil {
				t.Errorf("Validate(%q): %v", n, err)
			}
			again, err := ParseNetwork(string(n))
			if err != nil || again != n {
				t.Errorf("ParseNetwork of its own form: %q, %v", again, err)
			}
		})
	}
}

func TestNetworkAllows(t *testing.T) {
	t.Parallel()
	list, err := ParseNetwork("registry.npmjs.org,*.example.com,api.test:8443,127.0.0.1,[::1]:9000")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		n    Network
		host string
		port int
		want bool
	}{
		{list, "registry.npmjs.org", 443, true},
		{list, "REGISTRY.npmjs.org.", 80, true},
		{list, "registry.npmjs.org", 22, true}, // no port in the entry: any port
		{list, "evil-registry.npmjs.org", 443, false},
		{list, "registry.npmjs.org.evil.com", 443, false},
		{list, "npmjs.org", 443, false},
		{list, "a.example.com", 443, true},
		{list, "a.b.example.com", 443, true},
		{list, "example.com", 443, false}, // *. is below the domain only
		{list, "badexample.com", 443, false},
		{list, "api.test", 8443, true},
		{list, "api.test", 443, false},
		{list, "127.0.0.1", 1234, true},
		{list, "[::ffff:127.0.0.1]", 1234, true},
		{list, "127.0.0.2", 1234, false},
		{list, "localhost", 1234, false}, // a name is not its address
		{list, "[::1]", 9000, true},
		{list, "::1", 9000, true},
		{list, "[::1]", 9001, false},
		{list, "*.example.com", 443, false},
		{list, "a.example.com", 0, false},
		{list, "a.example.com", 70000, false},
		{list, "", 443, false},
		{list, "a.example.com\x00", 443, false},
		{NetworkOn, "anything", 1, true},
		{NetworkOff, "127.0.0.1", 80, false},
	}
	for _, tt := range tests {
		if got := tt.n.Allows(tt.host, tt.port); got != tt.want {
			t.Errorf("%q.Allows(%q, %d) = %v, want %v", tt.n, tt.host, tt.port, got, tt.want)
		}
	}
}

func TestNetworkJSON(t *testing.T) {
	t.Parallel()
	for _, n := range []Network{NetworkOff, NetworkOn, "a.b,*.c.d,[::1]:80"} {
		b, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		var back Network
		if err := json.Unmarshal(b, &back); err != nil || back != n {
			t.Errorf("%q: %s back to %q, %v", n, b, back, err)
		}
	}
	if b, _ := json.Marshal(Network("a.b,c.d")); string(b) != `["a.b","c.d"]` {
		t.Errorf("an allow-list's JSON: %s, want a list", b)
	}
	if err := Network("A.b").Validate(); err == nil || !strings.Contains(err.Error(), "not canonical") {
		t.Errorf("a converted, not parsed, list: %v", err)
	}
}

// FuzzParseNetwork: ParseNetwork never panics; what it accepts is valid,
// its own canonical form, and matches each of its name and IP entries.
func FuzzParseNetwork(f *testing.F) {
	for _, s := range []string{"off", "on", "a.b,*.c.d:443,[::1]:80,127.0.0.1", "*.", "[::1", "a.b:0", "::ffff:1.2.3.4"} {
		f.Add(s, "a.c.d", 443)
	}
	f.Fuzz(func(t *testing.T, s, host string, port int) {
		n, err := ParseNetwork(s)
		_ = n.Allows(host, port)
		if err != nil {
			return
		}
		if err := n.Validate(); err != nil {
			t.Fatalf("ParseNetwork(%q) = %q, invalid: %v", s, n, err)
		}
		if again, err := ParseNetwork(string(n)); err != nil || again != n {
			t.Fatalf("not canonical: %q -> %q, %v", n, again, err)
		}
		for _, h := range n.Hosts() {
			e, err := parseEntry(h)
			if err != nil {
				t.Fatalf("entry %q: %v", h, err)
			}
			port := e.port
			if port == 0 {
				port = 1
			}
			e.port = 0
			host := e.String()
			if e.wild {
				host = "x." + e.name
			}
			if !n.Allows(host, port) {
				t.Fatalf("%q does not allow its own entry %q as %s:%d", n, h, host, port)
			}
		}
	})
}
