package workloads

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
)

// Hiccup windows: the harness's own stalls (a GC pause, a starved CPU on a
// busy machine) delay every client at once, and a starved redis-server
// answers late; an op that a stall held up says nothing about the lock. A
// watcher asks to wake every hiccupTick and PINGs Redis, and records each
// wake-up later than hiccupThreshold, and each PING unanswered for longer,
// as a "hiccup" fault window (as jHiccup measures a JVM's): the checkers
// treat it as any fault (waits in it are not the lock's), the timeline shows
// it, and while Redis does not answer the runner holds info ops back as it
// does during faults, so that a request that reaches a starved server late
// still falls inside its op's deadline.
const (
	// HiccupFault is the fault name of a hiccup window.
	HiccupFault     = "hiccup"
	hiccupTick      = 5 * time.Millisecond
	hiccupThreshold = 40 * time.Millisecond
	// hiccupProbeTimeout bounds one PING: a partitioned Redis never holds
	// the watcher up longer.
	hiccupProbeTimeout = 5 * time.Second
)

// hiccups is the watcher of one run; stop ends it and waits for it.
type hiccups struct {
	r      *runner
	rdb    redis.UniversalClient // nil: no probe
	slow   *trackedFault         // on while a PING goes unanswered
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// watchHiccups starts the watcher of r's run; its windows go to r's
// recorder, on r's clock.
func watchHiccups(r *runner) *hiccups {
	hc := &hiccups{r: r}
	if hc.rdb = r.probe; hc.rdb == nil && len(r.rdbs) > 0 {
		hc.rdb = r.rdbs[0]
	}
	if hc.rdb != nil {
		nop := func(context.Context) error { return nil }
		hc.slow = &trackedFault{t: r.tracker, Fault: faults.Func(HiccupFault, "redis", nop, nop)}
	}
	hc.ctx, hc.cancel = context.WithCancel(context.Background())
	hc.wg.Go(hc.run)
	return hc
}

func (hc *hiccups) run() {
	t := time.NewTicker(hiccupTick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-hc.ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		if now.Sub(last)-hiccupTick > hiccupThreshold {
			hc.record("lockcheck", last.Add(hiccupTick), now)
		}
		hc.probe()
		last = time.Now()
	}
}

// probe PINGs Redis once. While the PING is unanswered past the threshold,
// a tracked fault is on, so info ops are held back until Redis answers.
func (hc *hiccups) probe() {
	if hc.rdb == nil {
		return
	}
	ctx, cancel := context.WithTimeout(hc.ctx, hiccupProbeTimeout)
	defer cancel()
	f := hc.slow
	var (
		mu       sync.Mutex
		answered bool // the PING returned: the fault may no longer start
		on       bool // the fault started
	)
	sent := time.Now()
	slow := time.AfterFunc(hiccupThreshold, func() {
		mu.Lock()
		defer mu.Unlock()
		if !answered {
			on = true
			_ = f.Start(ctx)
		}
	})
	_ = hc.rdb.Ping(ctx).Err()
	mu.Lock()
	answered = true
	mu.Unlock()
	slow.Stop()
	if on {
		_ = f.Stop(context.Background())
		hc.record("redis", sent, time.Now())
	}
}

// record writes a hiccup window of target: "lockcheck" (the harness was
// late) or "redis" (the server did not answer).
func (hc *hiccups) record(target string, start, end time.Time) {
	_ = hc.r.rec.Fault(model.Fault{Name: HiccupFault, Target: target, Start: hc.r.at(start), End: hc.r.at(end)})
}

func (hc *hiccups) stop() {
	hc.cancel()
	hc.wg.Wait()
}
