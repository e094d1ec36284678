package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// call sends req and waits for its reply: until ctx's deadline (told to the
// driver as timeout_ms; def when ctx has none) plus the grace, not counting
// the time the process spent stopped. ctx's cancellation (not its deadline)
// ends the wait at once. Calls of several owners may wait at once: each
// reply is routed by its id. Any failure kills the process, for every owner
// in it: later calls, and calls still waiting, fail with the same error.
func (p *proc) call(ctx context.Context, req Request, def time.Duration) (Reply, error) {
	budget := def
	if dl, ok := ctx.Deadline(); ok {
		budget = time.Until(dl)
	}
	req.TimeoutMS = max(millis(budget), 1)
	ch, err := p.send(&req)
	if err != nil {
		return Reply{}, err
	}
	until := time.Now().Add(budget + p.grace)
	rep, err := p.await(ctx, ch, budget+p.grace)
	if err != nil && ctx.Err() != nil && p.interruptible(req) {
		// Cancelled, not late: interrupt the call and wait for its own
		// answer, which says whether it acquired (or released) after all.
		if err = p.interrupt(ctx, req, until); err == nil {
			rep, err = p.await(context.WithoutCancel(ctx), ch, time.Until(until))
		}
	}
	if err != nil {
		p.mu.Lock()
		delete(p.pending, req.ID)
		p.mu.Unlock()
		p.fail(fmt.Errorf("%s: %w", req.describe(), err))
		p.kill()
		return Reply{}, p.err()
	}
	return rep, nil
}

// interruptible reports whether a cancelled req is interrupted rather than
// given up with its process: an owner's lock, trylock or unlock on a driver
// with CapInterrupt, sent as interruptible (its context was marked by
// impl.MarkInterruptible), whose context was cancelled (not past its
// deadline).
func (p *proc) interruptible(req Request) bool {
	switch req.Op {
	case OpLock, OpTryLock, OpUnlock:
		return p.shared && req.Owner != "" && req.Interruptible
	}
	return false
}

// interruptAck bounds the wait for an interrupt request's own reply, the
// timeout_ms it is sent with.
const interruptAck = time.Second

// interrupt sends the interrupt of req and waits (until at most until, and
// at most interruptAck) for its reply (ok: delivered; fail: req had
// ended), which only says whether it came in time: req's own reply says
// what happened. A delivered interrupt is reported to ctx's caller
// (impl.InterruptLanded). A reply that does not come in time is not an
// error: req's own reply, or its absence, decides.
func (p *proc) interrupt(ctx context.Context, req Request, until time.Time) error {
	ch, err := p.send(&Request{Op: OpInterrupt, Owner: req.Owner, Target: req.ID, TimeoutMS: millis(interruptAck)})
	if err != nil {
		return err
	}
	if rep, err := p.await(context.WithoutCancel(ctx), ch, min(time.Until(until), interruptAck)); err == nil && rep.Status == StatusOK {
		impl.InterruptLanded(ctx)
	}
	return nil
}

// send numbers req, registers it as pending and writes it.
func (p *proc) send(req *Request) (chan Reply, error) {
	p.mu.Lock()
	if p.broken != nil {
		p.mu.Unlock()
		return nil, p.broken
	}
	p.nextID++
	req.ID = p.nextID
	ch := make(chan Reply, 1)
	p.pending[req.ID] = ch
	p.mu.Unlock()
	b, err := json.Marshal(req)
	if err == nil {
		p.wmu.Lock()
		_, err = p.stdin.Write(append(b, '\n'))
		p.wmu.Unlock()
	}
	if err != nil {
		p.fail(fmt.Errorf("%s: write request: %w", req.describe(), err))
		p.kill()
		return nil, p.err()
	}
	return ch, nil
}

func (p *proc) err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.broken
}

// await waits for the reply on ch: at most wait of the time the process ran
// (time it spent stopped is added), or until ctx is cancelled (its deadline
// is the driver's to keep), the process fails or exits.
func (p *proc) await(ctx context.Context, ch <-chan Reply, wait time.Duration) (Reply, error) {
	waitCtx := ctx
	if ctx.Err() == nil {
		var cancel context.CancelFunc
		waitCtx, cancel = cancelOnly(ctx)
		defer cancel()
	}
	sent := time.Now()
	stopped := p.frozen.total(sent)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case rep := <-ch:
			return rep, nil
		case <-p.failed:
			return Reply{}, errors.New("the process failed")
		case <-p.done:
			select {
			case rep := <-ch: // answered just before it exited
				return rep, nil
			default:
			}
			return Reply{}, p.exitError()
		case <-waitCtx.Done():
			return Reply{}, context.Cause(waitCtx)
		case now := <-timer.C:
			if left := sent.Add(wait + p.frozen.total(now) - stopped).Sub(now); left > 0 || p.frozen.on() {
				timer.Reset(max(left, 10*time.Millisecond))
				continue
			}
			return Reply{}, fmt.Errorf("no reply within %v", wait.Round(time.Millisecond))
		}
	}
}

// cancelOnly returns a context that ends when parent is cancelled, but not
// when parent's deadline passes.
func cancelOnly(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	stop := context.AfterFunc(parent, func() {
		if !errors.Is(parent.Err(), context.DeadlineExceeded) {
			cancel(context.Cause(parent))
		}
	})
	return ctx, func() { stop(); cancel(nil) }
}

// frozenClock adds up the time a process spent stopped: a stall is a pause
// of every owner in the process, not a reply that is late.
type frozenClock struct {
	mu    sync.Mutex
	since time.Time     // when the current stop began (zero: running)
	sum   time.Duration // stops that ended
}

func (c *frozenClock) stop(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.since.IsZero() {
		c.since = now
	}
}

func (c *frozenClock) cont(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.since.IsZero() {
		c.sum += now.Sub(c.since)
		c.since = time.Time{}
	}
}

// total is the time spent stopped up to now.
func (c *frozenClock) total(now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.since.IsZero() {
		return c.sum
	}
	return c.sum + now.Sub(c.since)
}

// on reports whether the process is stopped now.
func (c *frozenClock) on() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.since.IsZero()
}
