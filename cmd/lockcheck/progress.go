package main

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// progressEvery is how often a run whose output is not a terminal (a CI
// log) prints a progress line.
const progressEvery = 5 * time.Second

// historyCounter counts the ops and healed fault windows of a history as
// the runner writes it (JSON Lines, one record a line). It never fails a
// write.
type historyCounter struct {
	ops, faults atomic.Int64
}

var (
	opKey    = []byte(`{"op":`)
	faultKey = []byte(`{"fault":`)
)

func (c *historyCounter) Write(p []byte) (int, error) {
	c.ops.Add(int64(bytes.Count(p, opKey)))
	c.faults.Add(int64(bytes.Count(p, faultKey)))
	return len(p), nil
}

// progressLines prints to w, every every until stop is called,
// one line of the run of subject planned for d: elapsed, ops recorded so
// far and fault windows healed ("checking" once d is past). stop waits for
// the printer to end.
func progressLines(w io.Writer, every time.Duration, subject string, d time.Duration, c *historyCounter) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				el := now.Sub(start).Round(time.Second)
				checking := ""
				if el > d {
					checking = "; checking"
				}
				fmt.Fprintf(w, "lockcheck run: %s: %s of %s, %d ops, %d fault windows healed%s\n",
					subject, el, d, c.ops.Load(), c.faults.Load(), checking)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
