package peers

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// maker is the impl.Maker shared by the adapters. It owns the renewal
// goroutines of its handles: Close stops them all and waits, without
// unlocking anything.
type maker struct {
	rdb       redis.UniversalClient
	newLocker func(m *maker, name, owner string) impl.Locker

	ctx    context.Context // ends at Close; parent of every renewal
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed atomic.Bool
}

func openMaker(rdb redis.UniversalClient, newLocker func(*maker, string, string) impl.Locker) (*maker, error) {
	if rdb == nil {
		return nil, errors.New("peers: nil redis client")
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &maker{rdb: rdb, newLocker: newLocker, ctx: ctx, cancel: cancel}, nil
}

func (m *maker) NewLocker(name, owner string) impl.Locker { return m.newLocker(m, name, owner) }

func (m *maker) Close() error {
	m.closed.Store(true)
	m.cancel()
	m.wg.Wait()
	return nil
}

// renewer extends one hold every lease/3 until stopped. extend reports
// (true, nil) when extended, (false, nil) when the hold is gone, and an error
// when the outcome is unknown (retried at the next tick).
type renewer struct {
	stopOnce sync.Once
	stopc    chan struct{}
	done     chan struct{}
	lost     chan struct{}
}

func (m *maker) startRenewer(lease time.Duration, extend func(ctx context.Context) (bool, error)) *renewer {
	r := &renewer{stopc: make(chan struct{}), done: make(chan struct{}), lost: make(chan struct{})}
	every := max(lease/3, time.Millisecond)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer close(r.done)
		t := time.NewTicker(every)
		defer t.Stop()
		lastOK := time.Now()
		for {
			select {
			case <-r.stopc:
				return
			case <-m.ctx.Done():
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(m.ctx, every)
			start := time.Now()
			ok, err := extend(ctx)
			cancel()
			switch {
			case err == nil && ok:
				lastOK = start
			case err == nil && !ok:
				close(r.lost)
				return
			case time.Since(lastOK) >= lease:
				close(r.lost) // no extension landed within a lease
				return
			}
		}
	}()
	return r
}

// stop stops the renewal and waits for it; safe on nil and more than once.
func (r *renewer) stop() {
	if r == nil {
		return
	}
	r.stopOnce.Do(func() { close(r.stopc) })
	<-r.done
}

func (r *renewer) lostC() <-chan struct{} {
	if r == nil {
		return nil
	}
	return r.lost
}

// cleanupCtx is a fresh bounded context for releasing after ctx ended.
func cleanupCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}
