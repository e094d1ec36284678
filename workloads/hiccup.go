package workloads

import (
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// Hiccup windows: the harness's own stalls (a GC pause, a starved CPU on a
// busy machine) delay every client at once, and an op that a stall held up
// says nothing about the lock. A watcher asks to wake every hiccupTick and
// records each wake-up later than hiccupThreshold as a "hiccup" fault
// window, as jHiccup measures a JVM's: the checkers then treat it as they
// treat any fault (waits in it are not the lock's), and the timeline shows
// it.
const (
	// HiccupFault is the fault name of a hiccup window.
	HiccupFault     = "hiccup"
	hiccupTick      = 5 * time.Millisecond
	hiccupThreshold = 40 * time.Millisecond
)

// hiccups is the watcher of one run; stop ends it and waits for it.
type hiccups struct {
	done chan struct{}
	wg   sync.WaitGroup
}

// watchHiccups starts the watcher of r's run: its windows go to r's
// recorder, on r's clock.
func watchHiccups(r *runner) *hiccups {
	hc := &hiccups{done: make(chan struct{})}
	hc.wg.Go(func() {
		t := time.NewTicker(hiccupTick)
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-hc.done:
				return
			case <-t.C:
			}
			now := time.Now()
			if late := now.Sub(last) - hiccupTick; late > hiccupThreshold {
				_ = r.rec.Fault(model.Fault{Name: HiccupFault, Target: "lockcheck", Start: r.at(last.Add(hiccupTick)), End: r.at(now)})
			}
			last = now
		}
	})
	return hc
}

func (hc *hiccups) stop() {
	close(hc.done)
	hc.wg.Wait()
}
