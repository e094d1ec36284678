package model

import "time"

// WaitSpentSlack is how much shorter than its wait a refused TryLock may
// last and still count as having spent it under Options.WaitSpent:
// Redisson counts the time a multilock has left in whole milliseconds.
const WaitSpentSlack = time.Millisecond

// waitSpent reports whether o is a TryLock refused after its wait was
// spent, which under Options.WaitSpent claims nothing about the lock.
func (opts Options) waitSpent(o *Op) bool {
	return opts.WaitSpent && o.Kind == Acquire && o.Outcome == Fail && !o.Blocking &&
		o.Wait >= int64(time.Millisecond) && o.Return-o.Call >= o.Wait-int64(WaitSpentSlack)
}
