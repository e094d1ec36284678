package model

import (
	"sync"
	"sync/atomic"
)

// lockInputs are the arrays eachSegment fills for one lock: its ops' step
// inputs and the same in call order. A long check reuses them from lock to
// lock (inputPool), so that building a lock's segments allocates almost
// nothing once the first few locks are done.
type lockInputs struct {
	slab []stepInput
	ins  []*stepInput
}

// sharedInputs are one lock's lockInputs while its segments are checked:
// they go back to the pool when the last segment is done, unless a
// segment that points into them is kept (an illegal one, to be explained).
type sharedInputs struct {
	lockInputs
	refs atomic.Int32 // the segments in flight, plus one while the lock is built
	kept atomic.Bool
}

// inputPool hands out sharedInputs for checkStream.
type inputPool struct{ p sync.Pool }

// get returns inputs for one lock, held once (by the caller building it).
func (ip *inputPool) get() *sharedInputs {
	s, _ := ip.p.Get().(*sharedInputs)
	if s == nil {
		s = new(sharedInputs)
	}
	s.kept.Store(false)
	s.refs.Store(1)
	return s
}

// hold counts one more segment of s in flight.
func (ip *inputPool) hold(s *sharedInputs) { s.refs.Add(1) }

// release ends one hold of s; the last one returns s to the pool unless
// it is kept. keep must be set before the hold that needs it is released.
func (ip *inputPool) release(s *sharedInputs) {
	if s.refs.Add(-1) == 0 && !s.kept.Load() {
		ip.p.Put(s)
	}
}
