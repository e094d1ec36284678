package scenario

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/lockcheck/lockcheck/model"
)

// Holders follows the history as the runner writes it and knows which of
// the run's first processes hold a lock, so that a fault can aim at the
// holder. Only a worker's first process is followed: process i is worker
// i's first process and uses client connection i (one connection per
// process); once it is retired its replacement's id no longer names the
// worker, and Holders forgets it.
type Holders struct {
	mu     sync.Mutex
	n      int
	holds  map[int]int // process -> holds
	grants int         // acquires granted to the followed processes
	buf    []byte
}

// Grants returns how many acquires of the followed processes were granted
// so far (a fault can wait for a grant made while it is in effect).
func (h *Holders) Grants() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.grants
}

func newHolders(processes int) *Holders {
	return &Holders{n: processes, holds: map[int]int{}}
}

// Holding returns the workers (indices) whose first process holds a lock,
// in increasing order.
func (h *Holders) Holding() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for p := range h.n {
		if h.holds[p] > 0 {
			out = append(out, p)
		}
	}
	return out
}

// tee returns a writer that feeds h and then w (nil w: h only).
func (h *Holders) tee(w io.Writer) io.Writer {
	if w == nil {
		return h
	}
	return io.MultiWriter(w, h)
}

// Write consumes JSON Lines records; it never fails.
func (h *Holders) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf = append(h.buf, p...)
	for {
		i := bytes.IndexByte(h.buf, '\n')
		if i < 0 {
			break
		}
		h.line(h.buf[:i])
		h.buf = h.buf[i+1:]
	}
	return len(p), nil
}

func (h *Holders) line(b []byte) {
	var rec struct {
		Op *model.Op `json:"op"`
	}
	if json.Unmarshal(b, &rec) != nil || rec.Op == nil || rec.Op.Process >= h.n {
		return
	}
	o := rec.Op
	switch {
	case o.Kind == model.Acquire && o.Outcome == model.OK:
		h.holds[o.Process]++
		h.grants++
	case o.Kind == model.Release && o.Outcome == model.OK:
		h.holds[o.Process] = max(0, h.holds[o.Process]-1)
	case o.Kind == model.Release && o.Outcome == model.Fail, o.Outcome == model.Info, o.Kind == model.Abandon:
		delete(h.holds, o.Process)
	}
}
