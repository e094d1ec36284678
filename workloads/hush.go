package workloads

import (
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// A long hold's outage cuts its client's connections (worker.reconnect).
// When the client is a driver process that several owners share, an op of
// another owner that fails under the cut is an unknown outcome, and the
// whole process is retired with it (retireInfo), the long holder too: the
// run then never sees what the outage left behind in the client (a renewal
// entry that survived a failed renewal, a subscription), which only a
// later hold by that same client shows. So while the holder's client is
// cut, its other owners start no op: they wait, as threads that have
// nothing to do while their one lock holder works, and go on once the
// wire trace shows the client reconnected (or the long hold ended). An op
// already in flight when the hush begins runs on.

// hushGate holds back the ops of a client process's owners but one.
type hushGate struct {
	mu   sync.Mutex
	by   *worker       // the owner that hushed the others
	lift chan struct{} // closed when the hush ends
}

// hush holds back the ops of every owner of the gate's client process but
// by until lift is called. A hush already in place is left as it is (lift
// is then a no-op).
func (h *hushGate) hush(by *worker) (lift func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by != nil {
		return func() {}
	}
	h.by, h.lift = by, make(chan struct{})
	ch := h.lift
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			close(ch)
			h.by, h.lift = nil, nil
		})
	}
}

// holding returns what w waits on before its next op: nil unless another
// owner hushed w's client process.
func (h *hushGate) holding(w *worker) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by == nil || h.by == w {
		return nil
	}
	return h.lift
}

// hushOthers holds back the ops of the other owners of w's client process
// while it is cut, when they share a driver process (see above); lift ends
// the hush (nil: nobody to hush).
func (w *worker) hushOthers() (lift func()) {
	if !w.sharesProcess() {
		return nil
	}
	return w.g.hush.hush(w)
}

// awaitReconnected waits until the wire trace shows that w's client
// reconnected after cut (wireTracer.reconnected: as many connections
// back in use after it as it lost), polling, at most until deadline or w's
// process crashes. An op sent before then meets a client still
// reconnecting (a library that writes to a connection it has not yet
// replaced fails the op), whose failure would retire the whole process.
func (w *worker) awaitReconnected(cut model.Fault, deadline time.Time) {
	client := w.clientConn()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !w.r.wire.reconnected(client, cut.Start, cut.End) && time.Now().Before(deadline) {
		select {
		case <-tick.C:
		case <-w.p.ctx.Done():
			return
		}
	}
}

// hushWait waits, before an op, while another owner of w's client process
// has it hushed. It returns at once when the process crashes or the run's
// grace period ends.
func (w *worker) hushWait() {
	ch := w.g.hush.holding(w)
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-w.p.ctx.Done():
	case <-w.hard.Done():
	}
}
