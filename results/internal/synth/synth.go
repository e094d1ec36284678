// Package synth draws synthetic histories for the tests of results and
// results/plots.
package synth

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// Fault is the fault window of every synthetic history: Redis paused
// from 2 s to 3 s.
var Fault = model.Fault{Name: "redis-pause", Target: "redis-1", Start: int64(2 * time.Second), End: int64(3 * time.Second)}

// History draws a well-formed, linearizable history of four processes
// on one lock for about dur: blocking acquires (1 s lease), a critical section
// incrementing a protected counter, releases; TryLocks that give up while
// another process holds the lock; and, during the pause, one acquire that
// times out (info) and retires its process. Grants stop during the pause.
func History(seed int64, dur time.Duration) *model.History {
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	const slots = 4
	us := func(n int64) int64 { return n * int64(time.Microsecond) }
	ids := []int{0, 1, 2, 3}
	nextID := slots
	free := make([]int64, slots) // when each slot's process is next idle
	h := &model.History{Header: model.Header{Version: model.FormatVersion, Meta: map[string]string{"seed": "synthetic"}}}
	h.Faults = []model.Fault{Fault}
	lockFree := us(10_000)
	var counter, seq int64
	infoDone := false
	for lockFree < int64(dur) {
		s := r.IntN(slots)
		call := max(free[s], lockFree-us(r.Int64N(3000)))
		grant := max(call, lockFree) + us(80+r.Int64N(300))
		if r.IntN(40) == 0 {
			grant += us(2000 + r.Int64N(8000)) // an occasional slow grant
		}
		if grant >= Fault.Start && call < Fault.End {
			grant = max(grant, Fault.End+us(200+r.Int64N(2000))) // waited through the pause
		}
		h.Ops = append(h.Ops, model.Op{Process: ids[s], Lock: "L", Kind: model.Acquire, Call: call, Return: grant,
			Lease: int64(time.Second), Blocking: true, Outcome: model.OK})
		secCall := grant + us(30)
		secRet := secCall + us(200+r.Int64N(3000))
		seq++
		h.Ops = append(h.Ops, model.Op{Process: ids[s], Lock: "L", Kind: model.Section, Call: secCall, Return: secRet,
			Read: counter, Write: counter + 1, Seq: seq, Outcome: model.OK})
		counter++
		relCall := secRet + us(20)
		relRet := relCall + us(60+r.Int64N(200))
		h.Ops = append(h.Ops, model.Op{Process: ids[s], Lock: "L", Kind: model.Release, Call: relCall, Return: relRet, Outcome: model.OK})
		free[s] = relRet + us(r.Int64N(500))
		lockFree = relRet

		// Another process tries the held lock and gives up.
		if o := (s + 1 + r.IntN(slots-1)) % slots; free[o] <= grant && r.IntN(3) == 0 {
			tc := grant + us(10)
			wait := us(100 + r.Int64N(400))
			if tc+wait < relCall {
				h.Ops = append(h.Ops, model.Op{Process: ids[o], Lock: "L", Kind: model.Acquire, Call: tc, Return: tc + wait,
					Lease: int64(time.Second), Wait: wait, Outcome: model.Fail, Error: "lock not obtained"})
				free[o] = tc + wait + us(50)
			}
		}
		// During the pause one acquire times out; its process is retired.
		if !infoDone && lockFree > Fault.End {
			for o := range slots {
				if o == s || free[o] > Fault.Start+int64(100*time.Millisecond) {
					continue
				}
				ic := Fault.Start + int64(100*time.Millisecond)
				ir := ic + int64(500*time.Millisecond)
				h.Ops = append(h.Ops, model.Op{Process: ids[o], Lock: "L", Kind: model.Acquire, Call: ic, Return: ir,
					Lease: int64(time.Second), Blocking: true, Outcome: model.Info, Error: "context deadline exceeded"})
				ids[o], nextID = nextID, nextID+1
				free[o] = max(free[o], ir)
				infoDone = true
				break
			}
		}
	}
	return h
}

// Stall is the client-side fault window of Locks: the second process of
// its second lock stalled from 4 s to 4.5 s.
var Stall = model.Fault{Name: "client-stall", Target: "p101", Start: int64(4 * time.Second), End: int64(4500 * time.Millisecond), Procs: []int{101}}

// Locks merges n histories of History (seeds seed, seed+1, ...) into one
// run on n locks, "L0", "L1", ...: lock i's processes are numbered from
// 100*i, so they never meet. It has Fault and, when n > 1, Stall.
func Locks(seed int64, dur time.Duration, n int) *model.History {
	h := &model.History{Header: model.Header{Version: model.FormatVersion, Meta: map[string]string{"seed": "synthetic"}}}
	h.Faults = []model.Fault{Fault}
	if n > 1 {
		h.Faults = append(h.Faults, Stall)
	}
	for i := range n {
		for _, o := range History(seed+int64(i), dur).Ops {
			o.Lock = fmt.Sprintf("L%d", i)
			o.Process += 100 * i
			h.Ops = append(h.Ops, o)
		}
	}
	return h
}
