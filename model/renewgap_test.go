package model

import "testing"

// A command names a lock by its key, its channel or a multilock member's
// key; another lock's keys, a side lock's and a lock whose name only
// contains it do not.
func TestNamesLock(t *testing.T) {
	cases := []struct {
		args string
		want bool
	}{
		{"9a1e 1 lockcheck:ab12:hunt 1500 tok", true},
		{"SUBSCRIBE redisson_lock__channel:{lockcheck:ab12:hunt}", true},
		{"75ad 1 lockcheck:ab12:hunt:m1 1500 tok", true},
		{"75ad 1 {lockcheck:ab12:hunt}:m2 1500 tok", true},
		{"75ad 1 lockcheck:ab12:hunt~cancel 1500 tok", false},
		{"75ad 1 lockcheck:ab12:hunt~cancel:m1 1500 tok", false},
		{"75ad 1 lockcheck:ab12:hunter 1500 tok", false},
		{"75ad 1 lockcheck:ab12:ahunt:m1 1500 tok", false},
	}
	for _, c := range cases {
		if got := namesLock(c.args, "hunt"); got != c.want {
			t.Errorf("namesLock(%q, hunt) = %v, want %v", c.args, got, c.want)
		}
	}
}
