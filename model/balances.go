package model

// balances tracks, op by op in call order, how many holds each live process
// of one lock has in every linearization of the ops seen so far: the state
// split may start a segment with. A live process's holds end only through
// its own releases or an Expire op, so its count is #ok acquires - #ok
// releases since its last Expire, while that is well defined.
//
// An Expire ends p's holds at an unknown instant inside its window
// [call, deadline]. An ok release of p called inside the window may come
// before that instant (its lease had not run out yet), so it does not count
// against the holds the Expire already dropped. An ok acquire of p called
// inside the window may come before or after the instant: p's count is then
// unknown until p is retired, and no cut is made. So is it when an ok
// acquire of p is still in flight at the Expire's call: the Expire may take
// effect before that acquire does, and the acquire's hold then outlasts it.
// While p's count is unknown, so is the lease of its holds: when p is
// retired, its holds may last the longest lease it ever asked for.
// A process retired while its Expire window is open may be retired before
// the Expire takes effect: the holds the Expire dropped then count as a
// retired process's (they may last a lease past the retirement).
type balances struct {
	bal                map[int]int   // live process -> holds
	lease              map[int]int64 // live process -> longest lease among its holds
	expiring           map[int]int64 // process -> end of its open Expire window
	granted            map[int]int64 // process -> return of its latest ok acquire
	expired            map[int]int64 // process -> longest lease among the holds its latest Expire dropped
	everLease          map[int]int64 // process -> longest lease among all its ok acquires
	uncertain          map[int]bool  // processes whose count is unknown
	positive, negative int
}

func newBalances() *balances {
	return &balances{bal: map[int]int{}, lease: map[int]int64{}, expiring: map[int]int64{}, granted: map[int]int64{}, expired: map[int]int64{}, everLease: map[int]int64{}, uncertain: map[int]bool{}}
}

// determined reports whether the counts fix one state: no process below
// zero or unknown, and at most one holder.
func (b *balances) determined() bool {
	return b.negative == 0 && b.positive <= 1 && len(b.uncertain) == 0
}

// holder returns the one live holder's state, if there is one.
func (b *balances) holder() (int, lockState, bool) {
	if b.positive != 1 {
		return 0, lockState{}, false
	}
	for p, n := range b.bal {
		if n > 0 {
			return p, lockState{Held: true, Owner: p, Count: n}, true
		}
	}
	return 0, lockState{}, false
}

// initial is holder with the holder's lease: the state a segment cut here
// starts from.
func (b *balances) initial() (int, lockState, bool) {
	p, st, ok := b.holder()
	if ok {
		st.Lease = b.lease[p]
	}
	return p, st, ok
}

// apply takes in into account. When in retires a process that may still
// hold the lock, it returns until when that hold may last, and true.
func (b *balances) apply(in *stepInput) (int64, bool) {
	p := in.process
	end, expiring := b.expiring[p]
	inWindow := expiring && in.call <= end
	switch {
	case in.kind == Acquire && in.outcome == OK:
		if inWindow {
			b.uncertain[p] = true
		}
		b.adjust(p, 1)
		b.lease[p] = max(b.lease[p], in.lease)
		b.granted[p] = in.deadline
		b.everLease[p] = max(b.everLease[p], in.lease)
	case in.kind == Release && in.outcome == OK:
		if inWindow && b.bal[p] == 0 {
			return 0, false // released before its lease ran out
		}
		b.adjust(p, -1)
		if b.bal[p] == 0 {
			delete(b.lease, p)
		}
	case in.kind == Expire:
		if b.granted[p] >= in.call {
			b.uncertain[p] = true
		}
		delete(b.expired, p)
		if b.bal[p] > 0 {
			b.expired[p] = b.lease[p]
		}
		b.drop(p)
		b.expiring[p] = max(b.expiring[p], in.deadline)
	}
	if (in.outcome != Info || in.kind == Expire) && in.kind != Abandon {
		return 0, false // not a retirement (an Expire never is)
	}
	lease, expired := b.expired[p]
	expired = expired && inWindow
	if !expired {
		lease = 0
	}
	if b.uncertain[p] {
		lease = max(lease, b.everLease[p])
	}
	held := b.bal[p] > 0 || b.uncertain[p] || expired || (in.kind == Acquire && b.bal[p] == 0)
	until := in.deadline + max(b.lease[p], in.lease, lease)
	b.drop(p)
	delete(b.uncertain, p)
	return until, held
}

// drop ends every hold of p.
func (b *balances) drop(p int) {
	b.adjust(p, -b.bal[p])
	delete(b.bal, p)
	delete(b.lease, p)
}

func (b *balances) seed(proc int, st lockState) {
	if st.Held {
		b.adjust(proc, st.Count)
		b.lease[proc] = st.Lease
	}
}

func (b *balances) adjust(p, d int) {
	n := b.bal[p]
	if n > 0 {
		b.positive--
	} else if n < 0 {
		b.negative--
	}
	n += d
	b.bal[p] = n
	if n > 0 {
		b.positive++
	} else if n < 0 {
		b.negative++
	}
}
