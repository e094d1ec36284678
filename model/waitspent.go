package model

import "time"

// WaitSpentSlack is how much shorter than its wait a refused TryLock may
// last and still count as having spent it under Options.WaitSpent:
// Redisson counts the time a multilock has left in whole milliseconds.
const WaitSpentSlack = time.Millisecond

// waitSpent reports whether o is a TryLock refused after its wait was
// spent, which under Options.WaitSpent claims nothing about the lock. A
// wait under 1 ms counts as 1 ms: a driver sends whole milliseconds and
// rounds such a wait up (impl/driver), and Redisson's multilock may spend
// 1 ms at its clock's first tick.
func (opts Options) waitSpent(o *Op) bool {
	wait := max(o.Wait, int64(time.Millisecond))
	return opts.WaitSpent && o.Kind == Acquire && o.Outcome == Fail && !o.Blocking &&
		o.Wait > 0 && o.Return-o.Call >= wait-int64(WaitSpentSlack)
}
