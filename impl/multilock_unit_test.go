package impl

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// scripted is a member Locker whose TryLock answers come from a script, and
// which records what it was asked.
type scripted struct {
	name    string
	answers []bool // one per TryLock; missing answers are false
	calls   *[]string
	held    int
}

func (s *scripted) Lock(context.Context, time.Duration) error { return nil }

func (s *scripted) TryLock(_ context.Context, wait, lease time.Duration) (bool, error) {
	ok := len(s.answers) > 0 && s.answers[0]
	if len(s.answers) > 0 {
		s.answers = s.answers[1:]
	}
	*s.calls = append(*s.calls, fmt.Sprintf("try %s %v %v -> %v", s.name, wait, lease, ok))
	if ok {
		s.held++
	}
	return ok, nil
}

func (s *scripted) Unlock(context.Context) error {
	*s.calls = append(*s.calls, "unlock "+s.name)
	if s.held == 0 {
		return ErrNotOwner
	}
	s.held--
	return nil
}

func (s *scripted) Expire(_ context.Context, ttl time.Duration) (bool, error) {
	*s.calls = append(*s.calls, fmt.Sprintf("expire %s %v", s.name, ttl))
	return true, nil
}

func scriptedLocks(calls *[]string, answers ...[]bool) []Locker {
	var out []Locker
	for i, a := range answers {
		out = append(out, &scripted{name: fmt.Sprint(i), answers: a, calls: calls})
	}
	return out
}

// The RedLock's rules as RedissonRedLock computes them.
func TestMultiLockRules(t *testing.T) {
	for _, c := range []struct {
		n, limit int
		remain   time.Duration
		wait     time.Duration
	}{
		{1, 0, 3 * time.Second, time.Second * 3},
		{3, 1, 3 * time.Second, time.Second},
		{5, 2, 3 * time.Second, 600 * time.Millisecond},
		{4, 1, 2 * time.Millisecond, time.Millisecond}, // max(2/4, 1)
		{3, 1, -1, time.Millisecond},                   // no wait: max(-1/3, 1)
	} {
		r := NewRedissonRedLock("r", make([]Locker, c.n))
		if r.failedLocksLimit() != c.limit || r.calcLockWaitTime(c.remain) != c.wait && c.n > 1 {
			t.Errorf("N=%d: failedLocksLimit %d, calcLockWaitTime(%v) %v; want %d, %v",
				c.n, r.failedLocksLimit(), c.remain, r.calcLockWaitTime(c.remain), c.limit, c.wait)
		}
		if m := NewMultiLock("m", make([]Locker, c.n)); m.failedLocksLimit() != 0 || m.calcLockWaitTime(c.remain) != c.remain {
			t.Errorf("N=%d: MultiLock limit/wait %d %v", c.n, m.failedLocksLimit(), m.calcLockWaitTime(c.remain))
		}
	}
}

// The order of member calls of one attempt, as RedissonMultiLock.tryLock
// makes them.
func TestMultiLockCallOrder(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		red     bool
		wait    time.Duration
		lease   time.Duration
		answers [][]bool
		ok      bool
		calls   []string
	}{
		{"multi refused at member 1 releases member 0", false, 0, 0,
			[][]bool{{true}, {false}, {true}}, false,
			[]string{"try 0 0s 0s -> true", "try 1 0s 0s -> false", "unlock 0"}},
		{"multi with a wait starts over from member 0", false, time.Minute, 0,
			[][]bool{{true, true}, {false, true}}, true,
			[]string{"try 0 1m0s -1ns -> true", "try 1 1m0s -1ns -> false", "unlock 0",
				"try 0 1m0s -1ns -> true", "try 1 1m0s -1ns -> true"}},
		{"multi lease without wait is the member lease", false, 0, time.Second,
			[][]bool{{true}}, true, []string{"try 0 0s 1s -> true", "expire 0 1s"}},
		{"multi lease with wait: members get 2×wait", false, time.Second, 5 * time.Second,
			[][]bool{{true}}, true, []string{"try 0 1s 2s -> true", "expire 0 5s"}},
		{"redlock stops at the quorum", true, 0, 0,
			[][]bool{{false}, {true}, {true}}, true,
			[]string{"try 0 0s 0s -> false", "try 1 0s 0s -> true", "try 2 0s 0s -> true"}},
		{"redlock of 3 fails at the second refusal", true, 0, 0,
			[][]bool{{true}, {false}, {false}}, false,
			[]string{"try 0 0s 0s -> true", "try 1 0s 0s -> false", "try 2 0s 0s -> false", "unlock 0"}},
		{"redlock breaks once N−limit members are held", true, 0, 0,
			[][]bool{{true}, {true}, {false}}, true,
			[]string{"try 0 0s 0s -> true", "try 1 0s 0s -> true", "try 2 0s 0s -> false"}},
	} {
		var calls []string
		locks := scriptedLocks(&calls, c.answers...)
		m := newMultiLock("x", locks, c.red, nil)
		at := time.Unix(0, 0)
		m.now = func() time.Time { return at } // no time passes
		ok, err := m.TryLock(ctx, c.wait, c.lease)
		if ok != c.ok || err != nil || !slices.Equal(calls, c.calls) {
			t.Errorf("%s: TryLock = %v, %v, calls\n  %q\nwant %v,\n  %q", c.name, ok, err, calls, c.ok, c.calls)
		}
	}
}
