package model

import "sort"

// steps is a step function of time built from (time, delta) events: its
// value at t is the sum of the deltas of events at or before t.
type steps struct {
	ts   []int64
	vals []int64 // vals[i]: the value from ts[i] on
}

type stepEvent struct{ t, d int64 }

func newSteps(evs []stepEvent) steps {
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].t < evs[j].t })
	var s steps
	var v int64
	for _, e := range evs {
		v += e.d
		if n := len(s.ts); n > 0 && s.ts[n-1] == e.t {
			s.vals[n-1] = v
			continue
		}
		s.ts = append(s.ts, e.t)
		s.vals = append(s.vals, v)
	}
	return s
}

// at is the value at t.
func (s steps) at(t int64) int64 {
	i := sort.Search(len(s.ts), func(i int) bool { return s.ts[i] > t })
	if i == 0 {
		return 0
	}
	return s.vals[i-1]
}

// minMax is the least and greatest value over [a, b].
func (s steps) minMax(a, b int64) (lo, hi int64) {
	lo = s.at(a)
	hi = lo
	for i := sort.Search(len(s.ts), func(i int) bool { return s.ts[i] > a }); i < len(s.ts) && s.ts[i] <= b; i++ {
		lo, hi = min(lo, s.vals[i]), max(hi, s.vals[i])
	}
	return lo, hi
}

// breaks are the times in (a, b] where the value changes.
func (s steps) breaks(a, b int64) []int64 {
	var out []int64
	for i := sort.Search(len(s.ts), func(i int) bool { return s.ts[i] > a }); i < len(s.ts) && s.ts[i] <= b; i++ {
		out = append(out, s.ts[i])
	}
	return out
}
