package faults

import (
	"bufio"
	"net"
	"sync"
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

	mu         sync.Mutex
	holds      []*trap // one per request not yet answered
	subscribed bool
	holdNext   *trap // a delayed subscription: holds the next frame, push or not
}

// close closes both sides, which ends both pumps, and releases the traps
// of replies that will never come.
func (c *wireConn) close() {
	c.closeOnce.Do(func() {
		_ = c.client.Close()
		_ = c.up.Close()
	})
	c.mu.Lock()
	pending := append(c.holds, c.holdNext)
	c.holds, c.holdNext = nil, nil
	c.mu.Unlock()
	for _, t := range pending {
		if t != nil {
			t.released()
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
		var hold *trap
		if t := c.note(cmd); t != nil {
			switch t.action {
			case "refused":
				frame = renameCommand(frame, refusedCommand)
			case "delayed":
				hold = t
			}
		}
		c.push(cmd, hold)
		if _, err := c.up.Write(frame); err != nil {
			return
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

// push records the delaying trap (nil: none) of the reply a request of
// cmd will get; a subscription's trap holds the connection's next frame.
func (c *wireConn) push(cmd string, hold *trap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if SubscribeCommands(cmd) {
		c.subscribed, c.holds = true, nil
		if hold != nil {
			c.holdNext = hold
		}
	}
	if !c.subscribed {
		c.holds = append(c.holds, hold)
	}
}

// pop takes the delaying trap of the next reply (nil when none is noted).
func (c *wireConn) pop() *trap {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.holdNext; h != nil {
		c.holdNext = nil
		return h
	}
	if c.subscribed || len(c.holds) == 0 {
		return nil
	}
	h := c.holds[0]
	c.holds = c.holds[1:]
	return h
}

// replies forwards Redis's replies to the client, holding back the ones
// noted, and everything after them on this connection, as noted.
func (c *wireConn) replies() {
	defer c.close()
	r := bufio.NewReaderSize(c.up, 64<<10)
	for {
		frame, push, err := readReply(r)
		if err != nil {
			return
		}
		t := c.popFor(push)
		switch {
		case t == nil:
		case isErrorReply(frame):
			c.w.rearm(t) // it ran nothing: the next request is the one
			t = nil
		case !c.wait(t.delay):
			t.released()
			return
		}
		_, err = c.client.Write(frame)
		if t != nil {
			t.released()
		}
		if err != nil {
			return
		}
	}
}

// popFor pops the note of a reply (a push answers no request, but a
// delayed subscription holds whatever frame comes next).
func (c *wireConn) popFor(push bool) *trap {
	if push {
		c.mu.Lock()
		defer c.mu.Unlock()
		h := c.holdNext
		c.holdNext = nil
		return h
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
