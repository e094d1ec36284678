package bench

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: microseconds from 1 µs to 10 min, 2 significant digits
// (1% resolution) keep one histogram at about 20 KB.
const (
	histMin    = 1
	histMax    = int64(10 * time.Minute / time.Microsecond)
	histDigits = 2
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histDigits) }

func record(h *hdrhistogram.Histogram, d time.Duration) {
	us := max(int64(d/time.Microsecond), histMin)
	_ = h.RecordValue(min(us, histMax)) // clamped into range: cannot fail
}

func quantile(h *hdrhistogram.Histogram, q float64) time.Duration {
	if h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.ValueAtQuantile(q)) * time.Microsecond
}

func histMaxDur(h *hdrhistogram.Histogram) time.Duration {
	if h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.Max()) * time.Microsecond
}

// notWaiting marks a request that was never known to be waiting.
const notWaiting time.Duration = -1

// grant is one hold of the contended lock. The log of grants is in grant
// order: each holder appends its grant while it holds the lock. Times are
// offsets from the start of the cell's window.
type grant struct {
	worker    int
	requested time.Duration // Lock was called
	waiting   time.Duration // the request was surely waiting (see request.waiting); notWaiting if never
	granted   time.Duration // Lock returned
	released  time.Duration // Unlock was called
}

// request is a Lock call still waiting when the window ended.
type request struct {
	worker    int
	requested time.Duration
	// waiting is when the request was surely waiting for the lock: the
	// Enqueuer's report for FIFO locks that have it (granted-at-once requests
	// never wait), else the call itself.
	waiting time.Duration
}

// contention is what a contended window's log says beyond throughput.
type contention struct {
	grants       int64
	ownerChanges int64                     // grants after the first that went to a worker other than the previous holder
	handoffs     *hdrhistogram.Histogram   // prev Unlock call -> grant, to a different worker that asked before that call
	overtakes    int64                     // grants that went past a request surely waiting since before they were requested
	waits        []*hdrhistogram.Histogram // per worker: Lock call -> grant, or -> window end when still waiting
	grantsBy     []int64                   // per worker
}

// analyze computes the contention figures of one window from its grant log
// (in grant order) and the requests still waiting at its end.
func analyze(workers int, log []grant, open []request, end time.Duration) contention {
	c := contention{
		grants:   int64(len(log)),
		handoffs: newHist(),
		waits:    make([]*hdrhistogram.Histogram, workers),
		grantsBy: make([]int64, workers),
	}
	for i := range c.waits {
		c.waits[i] = newHist()
	}
	for i, g := range log {
		c.grantsBy[g.worker]++
		record(c.waits[g.worker], g.granted-g.requested)
		if i == 0 {
			continue
		}
		prev := log[i-1]
		if g.worker == prev.worker {
			continue
		}
		c.ownerChanges++
		if g.requested < prev.released {
			record(c.handoffs, g.granted-prev.released)
		}
	}
	for _, r := range open {
		record(c.waits[r.worker], end-r.requested)
	}
	c.overtakes = overtakes(log, open)
	return c
}

// overtakes counts the grants g for which some request r was surely waiting
// before g was requested (r.waiting < g.requested) and was granted after g,
// or not at all. It walks the log backwards keeping the earliest waiting time
// among later grants and open requests.
func overtakes(log []grant, open []request) int64 {
	earliest := time.Duration(-1) // none yet
	consider := func(w time.Duration) {
		if w != notWaiting && (earliest < 0 || w < earliest) {
			earliest = w
		}
	}
	for _, r := range open {
		consider(r.waiting)
	}
	var n int64
	for i := len(log) - 1; i >= 0; i-- {
		g := log[i]
		if earliest >= 0 && earliest < g.requested {
			n++
		}
		consider(g.waiting)
	}
	return n
}

// ownerChangeShare is the share of grants after the first that changed owner.
func (c contention) ownerChangeShare() (float64, bool) {
	if c.grants < 2 {
		return 0, false
	}
	return float64(c.ownerChanges) / float64(c.grants-1), true
}
