package faults

import (
	"bufio"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// wireConn is one client connection through a Wire and its connection to
// Redis. The request pump (client → Redis) notes, for every request, the
// delaying trap that sprang on it (nil: none); the reply pump (Redis →
// client) takes one note per reply, in order, as Redis answers in order.
type wireConn struct {
	w          *Wire
	client, up net.Conn
	closeOnce  sync.Once
	hangOnce   sync.Once
	down       atomic.Bool // Redis's side is gone (hangUp)
	id         int64       // set by Wire.add

	mu         sync.Mutex
	holds      []pending // one per request not yet answered
	subscribed bool
	holdNext   *trap // a delayed subscription: holds the next frame, push or not
}

// pending is a request waiting for its reply: the trap that sprang on it
// (nil: none) and, when traced, its event so far.
type pending struct {
	trap *trap
	ev   *WireEvent
}

// close closes both sides, which ends both pumps, and releases the traps
// of replies that will never come.
func (c *wireConn) close() {
	c.closeOnce.Do(func() {
		_ = c.client.Close()
		_ = c.up.Close()
	})
	c.releaseTraps()
}

// drainTimeout bounds how long a connection Redis hung up on still reads
// what its client sent.
const drainTimeout = 100 * time.Millisecond

// hangUp ends the connection from Redis's side: Redis's side is closed
// and the client is told (EOF), but the request pump still reads what the
// client had sent, for drainTimeout at most, so requests lost in flight
// are traced (unanswered) even when they had not been read yet.
func (c *wireConn) hangUp() {
	c.hangOnce.Do(func() {
		c.down.Store(true)
		_ = c.up.Close()
		tc, ok := c.client.(*net.TCPConn)
		if !ok || tc.CloseWrite() != nil || tc.SetReadDeadline(time.Now().Add(drainTimeout)) != nil {
			_ = c.client.Close()
		}
	})
	c.releaseTraps()
}

// releaseTraps releases the traps of replies that will never come.
func (c *wireConn) releaseTraps() {
	c.mu.Lock()
	traps := []*trap{c.holdNext}
	for _, p := range c.holds {
		traps = append(traps, p.trap)
	}
	c.holdNext = nil
	c.mu.Unlock()
	for _, t := range traps {
		if t != nil {
			t.released()
		}
	}
}

// flush reports the traced requests that will never be answered, once
// both pumps ended.
func (c *wireConn) flush() {
	c.mu.Lock()
	holds := c.holds
	c.holds = nil
	c.mu.Unlock()
	for _, p := range holds {
		if p.ev != nil {
			c.w.trace(*p.ev)
		}
	}
}

// requests forwards the client's requests to Redis, springing the Wire's
// trap on the first one it matches.
func (c *wireConn) requests() {
	defer c.close()
	r := bufio.NewReaderSize(c.client, 64<<10)
	for {
		frame, cmd, err := readRequest(r)
		if err != nil {
			return
		}
		var p pending
		if c.w.traced() { // asked each request: a connection opened before Trace is traced from then on
			p.ev = &WireEvent{Kind: "cmd", Conn: c.id, Cmd: cmd, Args: TraceArgs(frame), Call: time.Now()}
		}
		if c.down.Load() { // Redis is gone: the request is lost, and traced so
			c.push(cmd, p)
			continue
		}
		if t := c.note(cmd); t != nil {
			switch t.action {
			case "refused":
				frame = renameCommand(frame, refusedCommand)
			case "delayed", "paused", "killed":
				p.trap = t
			}
		}
		c.push(cmd, p)
		if _, err := c.up.Write(frame); err != nil {
			c.hangUp()
		}
	}
}

// note springs the Wire's trap on cmd: on a connection that subscribed,
// only a refusing trap (which pairs no reply) may spring.
func (c *wireConn) note(cmd string) *trap {
	c.mu.Lock()
	subscribed := c.subscribed
	c.mu.Unlock()
	return c.w.take(cmd, subscribed)
}

// push records the request p of cmd whose reply comes next but for the
// ones before it; a subscription's trap holds the connection's next frame,
// and from a subscription on requests are traced as they go (their replies
// are not paired with them).
func (c *wireConn) push(cmd string, p pending) {
	c.mu.Lock()
	if SubscribeCommands(cmd) {
		c.subscribed, c.holds = true, nil
		if p.trap != nil {
			c.holdNext = p.trap
		}
	}
	subscribed := c.subscribed
	if !subscribed {
		c.holds = append(c.holds, p)
	}
	c.mu.Unlock()
	if subscribed && p.ev != nil {
		c.w.trace(*p.ev)
	}
}

// pop takes the request the next reply answers (its trap nil when none is
// noted, its event nil when untraced or unpaired).
func (c *wireConn) pop() pending {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.holdNext; h != nil {
		c.holdNext = nil
		return pending{trap: h}
	}
	if c.subscribed || len(c.holds) == 0 {
		return pending{}
	}
	p := c.holds[0]
	c.holds = c.holds[1:]
	return p
}

// replies forwards Redis's replies to the client, holding back the ones
// noted, and everything after them on this connection, as noted.
func (c *wireConn) replies() {
	defer c.hangUp()
	r := bufio.NewReaderSize(c.up, 64<<10)
	for {
		frame, push, err := readReply(r)
		if err != nil {
			return
		}
		p := c.popFor(push)
		t := p.trap
		switch {
		case t == nil:
		case isErrorReply(frame) && (t.action == "delayed" || t.action == "killed"):
			c.w.rearm(t) // it ran nothing (NOSCRIPT): the next request is the one
			t = nil
		case t.action == "paused":
			t.before()
		case t.action == "killed":
			c.drop(t, p.ev)
			return
		case !c.wait(t.delay):
			t.released()
			return
		}
		passed := time.Now() // before the write: no client reads the reply sooner
		_, err = c.client.Write(frame)
		if t != nil {
			t.released()
		}
		if p.ev != nil {
			p.ev.Reply, p.ev.Return = TraceReply(frame), passed
			c.w.trace(*p.ev)
		}
		if err != nil {
			return
		}
	}
}

// drop ends the connection in place of the reply to t's request: t's
// before has Redis kill the client's connections, the reply is never
// passed on (the request ran, its caller learns nothing of it), and the
// request is traced unanswered.
func (c *wireConn) drop(t *trap, ev *WireEvent) {
	t.before()
	c.hangUp()
	t.released()
	if ev != nil {
		c.w.trace(*ev)
	}
}

// popFor pops the note of a reply (a push answers no request, but a
// delayed subscription holds whatever frame comes next).
func (c *wireConn) popFor(push bool) pending {
	if push {
		c.mu.Lock()
		defer c.mu.Unlock()
		h := c.holdNext
		c.holdNext = nil
		return pending{trap: h}
	}
	return c.pop()
}

// isErrorReply reports an error reply ('-', or RESP3's blob error '!').
func isErrorReply(frame []byte) bool { return len(frame) > 0 && (frame[0] == '-' || frame[0] == '!') }

// wait sleeps for d unless the Wire closes first (false).
func (c *wireConn) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.w.done:
		return false
	}
}
