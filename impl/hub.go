package impl

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// hub multiplexes every channel subscription of one Client over a single
// pub/sub connection (Redisson's PublishSubscribeService, one connection).
//
// How a lock kind uses it: a waiter calls subscribe(channel) before it
// sleeps, waits on the returned subscription's wakeC() channel (together with
// a timer bounded by the holder's TTL), retries its acquire script on every
// wake-up, and calls close() when it stops waiting. The reentrant and fenced
// locks subscribe to ChannelName(name), shared by all waiters of the lock; the
// fair lock subscribes to its per-waiter channel ChannelName(name) + ":" +
// field. waitAcquire does all of this for a lock kind.
//
// Guarantees:
//   - Channels are reference counted: the first subscriber sends SUBSCRIBE,
//     the last close() sends UNSUBSCRIBE, so nothing stays subscribed.
//   - Every message on a channel wakes every waiter of that channel in this
//     client (a wake-up is a hint to retry, never a grant; Redisson wakes one
//     waiter per client, which loses the wake-up when that waiter gives up).
//   - Every confirmation of a subscription wakes the channel's waiters: the
//     first one (so a waiter retries once the channel is live and cannot miss
//     an unlock that raced with its subscribe) and every one after a
//     reconnect (messages published while disconnected are lost).
//   - A waiter that joins an already confirmed channel is woken at once, for
//     the same reason.
//
// Pub/sub is lossy anyway: waiters must bound every sleep (by the lock's TTL)
// and never rely on a message alone.
type hub struct {
	rdb     redis.UniversalClient
	timeout time.Duration // bound for one SUBSCRIBE/UNSUBSCRIBE write

	mu      sync.Mutex
	ps      *redis.PubSub // nil until the first subscribe
	closed  bool
	chans   map[string]*hubChannel
	pending map[string]int // SUBSCRIBE commands counted and not yet confirmed
	ops     []hubOp        // writes for the writer goroutine, in order
	kick    chan struct{}  // capacity 1: ops were queued
	stop    chan struct{}  // closed by close: the writer exits
	done    sync.WaitGroup // the receive loop and the writer
}

// hubOp is one SUBSCRIBE or UNSUBSCRIBE to write on the shared connection.
type hubOp struct {
	subscribe bool
	channel   string
}

type hubChannel struct {
	waiters   map[*subscription]struct{}
	confirmed bool
}

// subscription is one waiter's interest in one channel.
type subscription struct {
	h       *hub
	channel string
	c       chan struct{} // capacity 1: a pending wake-up
	once    sync.Once
}

func newHub(rdb redis.UniversalClient, timeout time.Duration) *hub {
	return &hub{
		rdb:     rdb,
		timeout: timeout,
		chans:   make(map[string]*hubChannel),
		pending: make(map[string]int),
		kick:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
	}
}

// subscribe registers a waiter on channel; the channel's first waiter has
// SUBSCRIBE written by the hub's writer goroutine, so the caller never blocks
// on the network (a waiter that is woken by nothing still wakes on its
// TTL-bounded timer). It returns ErrClosed after close.
func (h *hub) subscribe(channel string) (*subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	if h.ps == nil {
		h.ps = h.rdb.Subscribe(context.Background())
		msgs := h.ps.ChannelWithSubscriptions()
		h.done.Add(2)
		go h.loop(msgs)
		go h.writer()
	}
	s := &subscription{h: h, channel: channel, c: make(chan struct{}, 1)}
	ch := h.chans[channel]
	if ch == nil {
		ch = &hubChannel{waiters: make(map[*subscription]struct{})}
		h.chans[channel] = ch
		h.queueLocked(hubOp{subscribe: true, channel: channel})
	}
	ch.waiters[s] = struct{}{}
	if ch.confirmed {
		s.wake()
	}
	return s, nil
}

func (h *hub) queueLocked(op hubOp) {
	h.ops = append(h.ops, op)
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// writer writes queued SUBSCRIBE/UNSUBSCRIBE commands in queue order, so the
// replies arrive in the order pending counts them. A failed SUBSCRIBE is not
// counted: go-redis has recorded the channel and subscribes it again when it
// reconnects, and that confirmation wakes the waiters. A failed UNSUBSCRIBE
// needs nothing: go-redis has forgotten the channel, and the connection that
// failed is replaced without it.
func (h *hub) writer() {
	defer h.done.Done()
	for {
		select {
		case <-h.stop:
			return
		case <-h.kick:
		}
		for {
			h.mu.Lock()
			if len(h.ops) == 0 || h.closed {
				h.mu.Unlock()
				break
			}
			op := h.ops[0]
			h.ops = h.ops[1:]
			if op.subscribe {
				h.pending[op.channel]++
			}
			h.mu.Unlock()

			ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
			var err error
			if op.subscribe {
				err = h.ps.Subscribe(ctx, op.channel)
			} else {
				err = h.ps.Unsubscribe(ctx, op.channel)
			}
			cancel()
			if err != nil && op.subscribe {
				h.mu.Lock()
				if h.pending[op.channel] > 0 {
					h.pending[op.channel]--
				}
				if h.pending[op.channel] == 0 {
					delete(h.pending, op.channel)
				}
				h.mu.Unlock()
			}
		}
	}
}

// wake returns the channel on which the waiter is woken: after a message on
// its channel or a (re)subscription.
func (s *subscription) wakeC() <-chan struct{} { return s.c }

func (s *subscription) wake() {
	select {
	case s.c <- struct{}{}:
	default:
	}
}

// close unregisters the waiter; the last waiter of a channel unsubscribes it.
// It is idempotent.
func (s *subscription) close() {
	s.once.Do(func() { s.h.unsubscribe(s) })
}

func (h *hub) unsubscribe(s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := h.chans[s.channel]
	if ch == nil {
		return
	}
	delete(ch.waiters, s)
	if len(ch.waiters) > 0 {
		return
	}
	delete(h.chans, s.channel)
	if !h.closed {
		h.queueLocked(hubOp{channel: s.channel})
	}
}

// loop fans messages and subscription confirmations out to waiters until the
// pub/sub connection is closed.
func (h *hub) loop(msgs <-chan interface{}) {
	defer h.done.Done()
	for m := range msgs {
		switch m := m.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				h.confirmed(m.Channel)
			}
		case *redis.Message:
			h.notify(m.Channel)
		}
	}
}

func (h *hub) confirmed(channel string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := h.pending[channel]; n > 1 {
		// An older SUBSCRIBE of this channel answered; ours is still due.
		h.pending[channel] = n - 1
		return
	}
	delete(h.pending, channel)
	ch := h.chans[channel]
	if ch == nil {
		return
	}
	ch.confirmed = true
	for s := range ch.waiters {
		s.wake()
	}
}

func (h *hub) notify(channel string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ch := h.chans[channel]; ch != nil {
		for s := range ch.waiters {
			s.wake()
		}
	}
}

// close stops the writer, closes the pub/sub connection and waits for both
// goroutines. Waiters still registered are not woken: they watch the
// Client's closing channel. It is idempotent.
func (h *hub) close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	ps := h.ps
	close(h.stop)
	h.mu.Unlock()
	var err error
	if ps != nil {
		err = ps.Close()
	}
	h.done.Wait()
	return err
}
