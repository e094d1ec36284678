package model

import (
	"errors"
	"fmt"
	"strings"
)

// A multilock (Redisson's RedissonMultiLock) holds all of its member locks
// at once. The harness records each of its ops once, under the name of its
// first member (Op.Lock), with the other members in Op.Also; the protected
// resource is the first member's. The linearizability checker checks every
// member on its own, against every op on that member's name: a plain lock
// holder on a member's key and a multilock holder must exclude each other.
//
// ExpandMembers states what a multilock op says about each member:
//   - a granted acquire, an Info acquire, an Abandon and an Expire say the
//     same of every member;
//   - a refused acquire says that some member was held, not which: its
//     copies on Also claim nothing (Cancelled), while on Lock it keeps its
//     claim. That is exact when the members in Also are taken only through
//     multilocks that take Lock first, as the harness runs them; a refusal
//     seen while a failing attempt held members for a moment is legal
//     through Options.SplitVotes, as the multilock subjects set it;
//   - a refused release (one member said "not the owner") released every
//     member that was still held: on each member, Lock included, it is an
//     Expire (the member's hold, if any, ended within the op).
//
// A RedissonRedLock op names no Also: a quorum grant does not say which
// members it holds, so the RedLock is checked as one lock.

// JoinMembers renders member lock names as Op.Also.
func JoinMembers(names []string) string { return strings.Join(names, ",") }

// AlsoLocks returns the member locks o names in Also (nil when none).
func (o *Op) AlsoLocks() []string {
	if o.Also == "" {
		return nil
	}
	return strings.Split(o.Also, ",")
}

// ExpandMembers returns h with every op that names Also rewritten into one
// op per member as described above (Sections are not copied). It returns
// h itself when no op names Also; it never changes h.
func ExpandMembers(h *History) *History {
	extra := 0
	for i := range h.Ops {
		extra += len(h.Ops[i].AlsoLocks())
	}
	if extra == 0 {
		return h
	}
	out := *h
	out.Ops = make([]Op, 0, len(h.Ops)+extra)
	for _, o := range h.Ops {
		also := o.AlsoLocks()
		o.Also = ""
		if len(also) == 0 || o.Kind == Section {
			out.Ops = append(out.Ops, o)
			continue
		}
		if o.Kind == Release && o.Outcome == Fail {
			o.Kind, o.Outcome = Expire, OK
		}
		out.Ops = append(out.Ops, o)
		for _, m := range also {
			c := o
			c.Lock = m
			if c.Kind == Acquire && c.Outcome == Fail {
				c.Cancelled = true
			}
			out.Ops = append(out.Ops, c)
		}
	}
	return &out
}

// validateAlso checks an op's Also: named locks, none twice, not Lock.
func (o *Op) validateAlso() error {
	seen := map[string]bool{o.Lock: true}
	for _, m := range o.AlsoLocks() {
		switch {
		case m == "":
			return errors.New("op names an unnamed member lock in also")
		case seen[m]:
			return fmt.Errorf("op names lock %q twice (lock and also)", m)
		}
		seen[m] = true
	}
	return nil
}
