package workloads

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
)

// progress writes a one-line status to a terminal once a second: elapsed and
// remaining time, ops and their rate, outcomes, active faults.
type progress struct {
	done chan struct{}
	wg   sync.WaitGroup
	w    io.Writer
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// startProgress starts the progress line on w if w is a terminal.
func startProgress(w io.Writer, r *runner) *progress {
	p := &progress{done: make(chan struct{})}
	if w == nil || !isTerminal(w) {
		return p
	}
	p.w = w
	p.wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		var lastOps int64
		last := time.Now()
		for {
			select {
			case <-p.done:
				fmt.Fprint(w, "\r\033[K")
				return
			case now := <-t.C:
				ops := r.nOps.Load()
				rate := float64(ops-lastOps) / now.Sub(last).Seconds()
				lastOps, last = ops, now
				fmt.Fprintf(w, "\r\033[K%s", progressLine(r, ops, rate))
			}
		}
	})
	return p
}

// progressLine renders the status.
func progressLine(r *runner, ops int64, rate float64) string {
	el := time.Since(r.base).Truncate(time.Second)
	left := max(r.cfg.Duration-time.Since(r.base), 0).Truncate(time.Second)
	s := fmt.Sprintf("%s %s  %s elapsed, %s left  %d ops (%.0f/s)  ok %d fail %d info %d",
		r.subj.Name, r.plan.Workload, el, left, ops, rate, r.nOK.Load(), r.nFail.Load(), r.nInfo.Load())
	if f := r.tracker.names(); len(f) > 0 {
		s += "  faults: " + strings.Join(f, ", ")
	}
	return s
}

func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
}
