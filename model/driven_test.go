package model

import (
	"strings"
	"testing"
)

// drivenHistory is a history of one process's acquires, each released
// again: errs of them ended in an error (info, unknown outcome) and the
// rest were granted; faulted more acquires ended in an error inside a
// fault window.
func drivenHistory(grants, errs, faulted int) *History {
	h := &History{}
	t := int64(0)
	add := func(o Op) {
		o.Process, o.Lock, o.Call, o.Return = 1, "l", t, t+10
		t += 20
		h.Ops = append(h.Ops, o)
	}
	for range grants {
		add(Op{Kind: Acquire, Outcome: OK})
		add(Op{Kind: Release, Outcome: OK})
	}
	for i := range errs + faulted {
		if i == errs {
			h.Faults = append(h.Faults, Fault{Name: "kill", Start: t, End: t + int64(20*faulted)})
		}
		add(Op{Kind: Acquire, Outcome: Fail, Error: "TimeoutTooLarge: timeout exceeds the lease"})
	}
	return h
}

func TestUndriven(t *testing.T) {
	for _, c := range []struct {
		name                  string
		grants, errs, faulted int
		undriven              bool
	}{
		{"python-redis-lock 2.3.0: 98 of 102 acquires errors", 4, 98, 0, true},
		{"a few errors among many grants", 100, 10, 0, false},
		{"errors just past half", 40, 41, 0, true},
		{"errors at half", 40, 40, 0, false},
		{"fewer errors than the minimum", 0, MinDriverErrors - 1, 0, false},
		{"errors inside a fault window do not count", 20, 2, 200, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := drivenHistory(c.grants, c.errs, c.faulted)
			why := undriven(h, Options{})
			if (why != "") != c.undriven {
				t.Fatalf("undriven = %q, want undriven %v", why, c.undriven)
			}
			rep := Check(h, Options{})
			if c.undriven {
				if rep.Verdict == Valid || !strings.Contains(why, "TimeoutTooLarge") {
					t.Fatalf("verdict %s, reason %q: want not valid, naming the error", rep.Verdict, why)
				}
			}
		})
	}
}

// TestUndrivenGiveUps: acquires that failed once their wait ran out (a slow
// lock under load) are the lock's refusals, not errors; the same failures
// before the wait ran out still are.
func TestUndrivenGiveUps(t *testing.T) {
	const opTimeout = 3000
	for _, c := range []struct {
		name     string
		blocking bool
		lasted   int64
		undriven bool
	}{
		{"TryLocks that lasted their wait", false, 100, false},
		{"TryLocks that failed before their wait", false, 50, true},
		{"Locks that lasted the op timeout", true, opTimeout, false},
		{"Locks that failed early", true, 10, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &History{}
			for i := range 3 * MinDriverErrors {
				at := int64(i) * 5000
				h.Ops = append(h.Ops, Op{Process: i + 1, Lock: "l", Kind: Acquire, Blocking: c.blocking, Wait: 100,
					Call: at, Return: at + c.lasted, Outcome: Fail, Error: "lock: not obtained\ncontext deadline exceeded"})
			}
			h.Ops = append(h.Ops, Op{Process: 99, Lock: "l", Kind: Acquire, Call: 1, Return: 2, Outcome: OK})
			why := undriven(h, Options{OpTimeout: opTimeout})
			if (why != "") != c.undriven {
				t.Fatalf("undriven = %q, want undriven %v", why, c.undriven)
			}
		})
	}
}

// TestUndrivenReleases: a history whose releases outside faults mostly end
// in an error (Redisson 3.24.1's unlock with retryAttempts 0) did not
// drive its lock either, though every acquire was granted.
func TestUndrivenReleases(t *testing.T) {
	for _, c := range []struct {
		name       string
		holds, bad int
		refused    bool // the bad unlocks failed "not held" instead of erring
		undriven   bool
	}{
		{"every unlock an error", 20, 20, false, true},
		{"a few unlock errors", 20, 5, false, false},
		// node-redisson on renewal-refused: its lost holds' unlocks answer
		// "not held by this owner", the lock's refusal.
		{"every unlock refused, with its reason", 20, 20, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &History{}
			for i := range c.holds {
				at := int64(100 * i)
				rel := Op{Process: i, Lock: "l", Kind: Release, Call: at + 20, Return: at + 30, Outcome: OK}
				switch {
				case i < c.bad && c.refused:
					rel.Outcome, rel.Error = Fail, "lock: not held by this owner (driver node-redisson)"
				case i < c.bad:
					rel.Outcome, rel.Error = Info, "RedisException: ERR invalid expire time in 'set' command"
				}
				h.Ops = append(h.Ops, Op{Process: i, Lock: "l", Kind: Acquire, Call: at, Return: at + 10, Outcome: OK}, rel)
			}
			why := undriven(h, Options{})
			if (why != "") != c.undriven {
				t.Fatalf("undriven = %q, want undriven %v", why, c.undriven)
			}
			if c.undriven && (!strings.Contains(why, "releases") || !strings.Contains(why, "invalid expire time") || Check(h, Options{}).Verdict == Valid) {
				t.Fatalf("reason %q, verdict %s: want the releases' error named and a verdict that is not valid", why, Check(h, Options{}).Verdict)
			}
		})
	}
}
