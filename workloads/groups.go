package workloads

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/lockcheck/lockcheck/workloads/subject"
)

// group is one client process of a run: the workers whose owners share its
// lock client (Plan.ThreadsPerProcess of them), one client connection and
// its Makers: one driver process of an external subject, one go-redis
// client and Maker of a Go lock. A fault on any of its workers hits the
// process, so all of them (clients.go).
type group struct {
	idx  int // 0 .. Plan.Processes-1
	conn int // its client connection: r.rdbs[conn], r.makers[conn]
	// client is the Op.Client of its owners now (0: owners not grouped); a
	// crash of the whole process moves it on to a new one.
	client  atomic.Int64
	workers []*worker
	hush    hushGate // an owner's outage holds back the others' ops (hush.go)
}

// makeGroups makes the run's client processes and their workers, and the
// ids of their first owners and processes.
func (r *runner) makeGroups(hard, stop context.Context) {
	t := r.plan.Threads()
	for g := range r.plan.Processes {
		conn, client := r.seat(g)
		gr := &group{idx: g, conn: conn}
		gr.client.Store(int64(client))
		for k := range t {
			i := g*t + k
			w := &worker{r: r, g: gr, slot: i, name: fmt.Sprintf("w%d", i), makers: r.makers[gr.conn], hard: hard, stop: stop}
			w.newProcess(i)
			gr.workers = append(gr.workers, w)
			r.workers = append(r.workers, w)
		}
	}
	r.nextPID.Store(int64(r.plan.Owners()))
	r.nextClient.Store(int64(r.plan.Processes))
}

// seat is where group g's first owners run: its client connection and its
// first client process (Op.Client, 0: owners not grouped).
func (r *runner) seat(g int) (conn, client int) {
	if r.grouped() {
		client = g + 1
	}
	return g % len(r.makers), client
}

// grouped reports whether owners share client processes.
func (r *runner) grouped() bool { return r.plan.Threads() > 1 }

// partOf is the index of the subject part (of a mix) that process pid of
// client process client runs: every owner of a client process runs the
// same library.
func (r *runner) partOf(pid, client int, parts int) int {
	if parts <= 1 {
		return 0
	}
	if client > 0 {
		return (client - 1) % parts
	}
	return pid % parts
}

// sharesProcess reports whether the owners of w's client process share one
// external driver process: then the failure of one is the failure of all.
func (w *worker) sharesProcess() bool {
	if !w.r.grouped() {
		return false
	}
	s := w.r.subj
	if len(s.Parts) > 0 {
		s = s.Parts[w.r.partOf(w.p.id, w.p.client, len(s.Parts))]
	}
	return s.Kind == subject.KindExternal
}

// crashGroup crashes every worker of g but except (nil: all), as a crash
// fault does, once its client process client crashed: g moves on to a new
// client process (owners that start from now on are recorded in it) and
// crashGroup returns what to wait for, each crash's acknowledgement. A
// client process that already crashed (g moved on) is not crashed again:
// two owners that fail together take their process down once.
func (r *runner) crashGroup(g *group, client int64, except *worker) []chan struct{} {
	if r.grouped() && !g.client.CompareAndSwap(client, r.nextClient.Add(1)) {
		return nil
	}
	var out []chan struct{}
	for _, w := range g.workers {
		if w == except {
			continue
		}
		if done := w.requestCrash(); done != nil {
			out = append(out, done)
		}
	}
	return out
}

// clientsOf records which client process each process id ran in.
type clientsOf struct {
	mu sync.Mutex
	m  map[int]int
}

func (c *clientsOf) set(pid, client int) {
	if client == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[int]int{}
	}
	c.m[pid] = client
}

func (c *clientsOf) get(pid int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[pid]
}
