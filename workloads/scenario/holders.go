package scenario

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"sync"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
)

// Holders follows the history as the runner writes it and knows which
// workers hold a lock, so that a fault can aim at the holder. Process i is
// worker i's first process and uses client connection i; a replacement
// keeps its worker's connection under a new id, which the runner's clients
// resolve (WorkerOf, given by follow). Without them only the first
// processes are followed: once one is retired its replacement's id names
// no worker, and Holders forgets it.
type Holders struct {
	mu       sync.Mutex
	n        int
	holds    map[int]int // process -> holds
	grants   int         // acquires granted to the followed processes
	workerOf func(p int) (worker int, ok bool)
	buf      []byte
}

// WorkerResolver is what the runner's faults.Clients also offer: the worker
// whose current process is p.
type WorkerResolver interface {
	WorkerOf(p int) (worker int, ok bool)
}

// follow makes h follow replacements too, through r (when c offers one).
func (h *Holders) follow(c faults.Clients) {
	r, ok := c.(WorkerResolver)
	if !ok {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.workerOf = r.WorkerOf
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

// Holding returns the workers (indices) whose current process holds a
// lock, in increasing order.
func (h *Holders) Holding() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for p, n := range h.holds {
		if w, ok := h.worker(p); ok && n > 0 {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// worker is the worker process p runs on now (false: none, or unknown).
func (h *Holders) worker(p int) (int, bool) {
	if h.workerOf != nil {
		return h.workerOf(p)
	}
	return p, p < h.n
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
	if json.Unmarshal(b, &rec) != nil || rec.Op == nil || h.workerOf == nil && rec.Op.Process >= h.n {
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
