package driver

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// spares are driver processes a Maker starts ahead of use (Options.Spares):
// started, greeted and connected, each waiting to be handed to the next
// owner that has no process yet. They keep a slow start (a JVM's) out of the
// latency of an owner's first op: the harness waits for the first ones
// (Ready) before its clock starts, and every process abandoned (crashed,
// retired) starts a spare for the client that will replace it. An owner
// without a process takes a ready spare, or waits for one being started,
// and starts its own only when none is on its way.
//
// A spare says hello with the client name "spare<n>": the driver's owner
// identity is its process, whichever logical client it then serves.
type spares struct {
	ready    []*proc
	starting int           // starts in flight
	changed  chan struct{} // closed (and replaced) when ready or starting change
	seq      int
	err      error          // the first start that failed
	bg       sync.WaitGroup // every start in flight
	ctx      context.Context
	cancel   context.CancelFunc
	stopped  bool
}

// startSpares begins the first Options.Spares starts (Open calls it).
func (m *Maker) startSpares() {
	m.spares.ctx, m.spares.cancel = context.WithCancel(context.Background())
	m.spares.changed = make(chan struct{})
	for range m.opts.Spares {
		m.addSpare()
	}
}

// notifyLocked wakes those waiting for a spare. m.mu is held.
func (m *Maker) notifyLocked() {
	close(m.spares.changed)
	m.spares.changed = make(chan struct{})
}

// addSpare starts one spare in the background (nothing once Close began).
func (m *Maker) addSpare() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.spares.stopped {
		return
	}
	m.spares.seq++
	m.spares.starting++
	name := fmt.Sprintf("spare%d", m.spares.seq)
	m.spares.bg.Go(func() {
		// A second try: on a loaded machine one slow start is no reason
		// to give up a run (a driver that cannot start fails both).
		p, err := m.start(m.spares.ctx, name)
		if err != nil && m.spares.ctx.Err() == nil {
			p, err = m.start(m.spares.ctx, name)
		}
		m.mu.Lock()
		m.spares.starting--
		late := err == nil && m.spares.stopped
		switch {
		case err != nil:
			if m.spares.err == nil {
				m.spares.err = err
			}
		case !late:
			m.spares.ready = append(m.spares.ready, p)
		}
		m.notifyLocked()
		m.mu.Unlock()
		if late {
			p.kill()
		}
	})
}

// takeSpare hands out a live spare: a ready one, else the next one being
// started (waiting within ctx). It returns nil when none is on its way.
func (m *Maker) takeSpare(ctx context.Context) *proc {
	for {
		m.mu.Lock()
		if m.spares.stopped || (len(m.spares.ready) == 0 && m.spares.starting == 0) {
			m.mu.Unlock()
			return nil
		}
		if len(m.spares.ready) == 0 {
			changed := m.spares.changed
			m.mu.Unlock()
			select {
			case <-changed:
				continue
			case <-ctx.Done():
				return nil
			}
		}
		p := m.spares.ready[0]
		m.spares.ready = m.spares.ready[1:]
		m.mu.Unlock()
		select {
		case <-p.done: // died while it waited: try the next
			p.kill()
		default:
			return p
		}
	}
}

// Ready waits until the spares Open began are started (or failed), and
// reports the first that failed. A Maker without spares is ready at once.
func (m *Maker) Ready(ctx context.Context) error {
	for {
		m.mu.Lock()
		n, changed, err := len(m.spares.ready), m.spares.changed, m.spares.err
		starting := m.spares.starting
		m.mu.Unlock()
		switch {
		case err != nil:
			return fmt.Errorf("start a spare driver process: %w", err)
		case starting == 0 || n >= m.opts.Spares:
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// stopSpares ends the background starts and returns the spares still
// waiting, for Close to end.
func (m *Maker) stopSpares() []*proc {
	m.mu.Lock()
	m.spares.stopped = true
	if m.spares.cancel != nil {
		m.spares.cancel()
	}
	m.mu.Unlock()
	m.spares.bg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	ready := m.spares.ready
	m.spares.ready = nil
	return ready
}

// startSlots bounds how many driver processes start at once in this
// process (banner and hello): as many as there are CPUs, at least 2. Thirty
// JVMs started together on two cores would each miss StartTimeout; one
// after the other, each takes a fraction of a second. StartTimeout counts
// from the slot on.
var startSlots = make(chan struct{}, max(2, runtime.NumCPU()))

// startSlot waits, within ctx, for a start slot; release gives it back.
func startSlot(ctx context.Context) (release func(), err error) {
	select {
	case startSlots <- struct{}{}:
		return func() { <-startSlots }, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}
