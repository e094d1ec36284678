package driver

import (
	"context"
	"fmt"
	"sync"
)

// spares are driver processes a Maker starts ahead of use (Options.Spares):
// started, greeted and connected, each waiting to be handed to the next
// owner that has no process yet. They keep a slow start (a JVM's) out of the
// latency of an owner's first op: the harness waits for the first ones
// (Ready) before its clock starts, and every spare handed out is replaced in
// the background, ready for the client that replaces a retired one.
//
// A spare says hello with the client name "spare<n>": the driver's owner
// identity is its process, whichever logical client it then serves.
type spares struct {
	ready   []*proc
	seq     int
	err     error          // the first start that failed
	first   sync.WaitGroup // the starts begun by Open
	bg      sync.WaitGroup // every start in flight
	ctx     context.Context
	cancel  context.CancelFunc
	stopped bool
}

// startSpares begins the first Options.Spares starts (Open calls it).
func (m *Maker) startSpares() {
	m.spares.ctx, m.spares.cancel = context.WithCancel(context.Background())
	for range m.opts.Spares {
		m.spares.first.Add(1)
		m.addSpare(m.spares.first.Done)
	}
}

// addSpare starts one spare in the background; done, if set, is called
// once it is ready or has failed. The caller need not hold m.mu.
func (m *Maker) addSpare(done func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.spares.stopped {
		if done != nil {
			done()
		}
		return
	}
	m.spares.seq++
	name := fmt.Sprintf("spare%d", m.spares.seq)
	m.spares.bg.Go(func() {
		if done != nil {
			defer done()
		}
		p, err := m.start(m.spares.ctx, name)
		m.mu.Lock()
		late := err == nil && m.spares.stopped
		switch {
		case err != nil:
			if m.spares.err == nil {
				m.spares.err = err
			}
		case !late:
			m.spares.ready = append(m.spares.ready, p)
		}
		m.mu.Unlock()
		if late {
			p.kill()
		}
	})
}

// takeSpare hands out a live spare (nil when none is ready) and starts its
// replacement.
func (m *Maker) takeSpare() *proc {
	for {
		m.mu.Lock()
		if len(m.spares.ready) == 0 || m.spares.stopped {
			m.mu.Unlock()
			return nil
		}
		p := m.spares.ready[0]
		m.spares.ready = m.spares.ready[1:]
		m.mu.Unlock()
		m.addSpare(nil)
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
	done := make(chan struct{})
	// Ends by itself: every start is bounded by StartTimeout.
	go func() {
		m.spares.first.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.spares.err; err != nil {
		return fmt.Errorf("start a spare driver process: %w", err)
	}
	return nil
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
