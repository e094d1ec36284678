package subject

import "testing"

// Only the clients lockcheck configures itself are taken to recover from a
// reset at once; a mixed fleet is one only if every part is.
func TestConfiguredClient(t *testing.T) {
	ref, ext := Subject{Kind: KindReference}, Subject{Kind: KindExternal}
	cases := []struct {
		name string
		s    Subject
		want bool
	}{
		{"reference", ref, true},
		{"peer", Subject{Kind: KindPeer}, true},
		{"mutant", Subject{Kind: KindMutant}, true},
		{"external", ext, false},
		{"user", Subject{Kind: KindUser}, false},
		{"permits", Subject{Kind: KindPermits}, false},
		{"a fleet of reference locks", Subject{Kind: KindMixed, Parts: []Subject{ref, ref}}, true},
		{"a fleet with a driver", Subject{Kind: KindMixed, Parts: []Subject{ref, ext}}, false},
	}
	for _, c := range cases {
		if got := c.s.ConfiguredClient(); got != c.want {
			t.Errorf("%s: ConfiguredClient = %v, want %v", c.name, got, c.want)
		}
	}
}
