package model

// rwBalances is balances for a read-write lock: per live process, the
// holds it has on each side in every linearization of the ops seen so far
// (#ok acquires - #ok releases of that side), with balances' handling of
// Expire windows and retirements. The counts fix one state when none is
// negative or unknown, at most one process writes, and no other process
// reads while it does.
type rwBalances struct {
	write, read    map[int]int   // live process -> holds on each side
	wlease, rlease map[int]int64 // live process -> longest lease among its holds of each side
	expiring       map[int]int64 // process -> end of its open Expire window
	granted        map[int]int64 // process -> return of its latest ok acquire
	everLease      map[int]int64 // process -> longest lease among all its ok acquires
	uncertain      map[int]bool  // processes whose counts are unknown
}

func newRWBalances() *rwBalances {
	return &rwBalances{write: map[int]int{}, read: map[int]int{}, wlease: map[int]int64{}, rlease: map[int]int64{}, expiring: map[int]int64{},
		granted: map[int]int64{}, everLease: map[int]int64{}, uncertain: map[int]bool{}}
}

func (b *rwBalances) determined() bool {
	if len(b.uncertain) > 0 {
		return false
	}
	writer, writers := -1, 0
	for p, n := range b.write {
		switch {
		case n < 0:
			return false
		case n > 0:
			writer, writers = p, writers+1
		}
	}
	if writers > 1 {
		return false
	}
	for p, n := range b.read {
		if n < 0 || (n > 0 && writers == 1 && p != writer) {
			return false
		}
	}
	return true
}

// initial is the determined state; held is false when the lock is free.
func (b *rwBalances) initial() (int, lockState, bool) {
	var st lockState
	holder, held := 0, false
	readers := map[int]readHolds{}
	for p, n := range b.read {
		if n > 0 {
			readers[p] = readHolds{n, b.rlease[p]}
			if !held || p < holder {
				holder, held = p, true
			}
		}
	}
	for p, n := range b.write {
		if n > 0 {
			st.Held, st.Owner, st.Count, st.Lease = true, p, n, b.wlease[p]
			holder, held = p, true
		}
	}
	st.Readers = encodeReaders(readers)
	return holder, st, held
}

func (b *rwBalances) seed(_ int, st lockState) {
	if st.Held {
		b.write[st.Owner], b.wlease[st.Owner] = st.Count, st.Lease
	}
	for p, r := range st.readers() {
		b.read[p], b.rlease[p] = r.n, r.lease
	}
}

// side returns the counts and leases of in's side.
func (b *rwBalances) side(in *stepInput) (map[int]int, map[int]int64) {
	if in.writes() {
		return b.write, b.wlease
	}
	return b.read, b.rlease
}

func (b *rwBalances) apply(in *stepInput) (int64, bool) {
	p := in.process
	end, expiring := b.expiring[p]
	inWindow := expiring && in.call <= end
	count, lease := b.side(in)
	switch {
	case in.kind == Acquire && in.outcome == OK:
		if inWindow {
			b.uncertain[p] = true
		}
		count[p]++
		lease[p] = max(lease[p], in.lease)
		b.granted[p] = in.deadline
		b.everLease[p] = max(b.everLease[p], in.lease)
	case in.kind == Release && in.outcome == OK:
		if inWindow && count[p] == 0 {
			return 0, false // released before its lease ran out
		}
		if count[p]--; count[p] == 0 {
			delete(lease, p)
		}
	case in.kind == Expire:
		if b.granted[p] >= in.call {
			b.uncertain[p] = true
		}
		if b.write[p] > 0 || b.read[p] > 0 {
			b.uncertain[p] = b.uncertain[p] || inWindow
		}
		b.drop(p)
		b.expiring[p] = max(b.expiring[p], in.deadline)
	}
	if (in.outcome != Info || in.kind == Expire) && in.kind != Abandon {
		return 0, false
	}
	longest := max(b.wlease[p], b.rlease[p])
	if b.uncertain[p] || inWindow {
		longest = max(longest, b.everLease[p])
	}
	held := b.write[p] > 0 || b.read[p] > 0 || b.uncertain[p] || inWindow || in.kind == Acquire
	until := in.deadline + max(longest, in.lease)
	b.drop(p)
	delete(b.uncertain, p)
	return until, held
}

func (b *rwBalances) drop(p int) {
	delete(b.write, p)
	delete(b.read, p)
	delete(b.wlease, p)
	delete(b.rlease, p)
}
