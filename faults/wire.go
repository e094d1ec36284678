package faults

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// Wire is a TCP proxy on 127.0.0.1 (ephemeral port) in front of one Redis
// address that reads the RESP it forwards. It pairs every request of a
// connection with its reply, so a fault can act on one command of one
// client, which a byte-level proxy cannot: have Redis refuse it, or hold
// its reply back past the client's timeout after Redis ran it (see
// RefuseOnce, SlowReply). It also knows the address Redis sees for each of
// the client's connections, so Redis itself can kill them (KillClient).
//
// Guarantees:
//   - With no trap armed, every byte is forwarded unchanged and in order.
//   - A trap acts on exactly one request: the first one any connection of
//     the Wire sends that the trap's match accepts, after it was armed. A
//     delaying trap whose request Redis answers with an error (it ran
//     nothing: NOSCRIPT before a client's EVAL fallback) lets that reply
//     through at once and waits for the next request, while still armed.
//   - A connection that subscribes (SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE) no
//     longer pairs replies with requests. From then on a refusing trap
//     still acts on its requests (RefuseSubscribe), and a delaying trap
//     acts only on a subscription, holding back the connection's next
//     frame from Redis, whatever it is, and all after it (SlowSubscribe).
//     RESP3 pushes are never taken for replies.
//   - Bytes that are not RESP end their connection (the client sees EOF).
//   - When Redis's side of a connection closes (a kill), the client sees
//     EOF, and what it had sent by then is still read, for 100 ms at most,
//     and traced as requests never answered.
//   - Close stops the listener, closes every connection and waits for
//     every goroutine the Wire started.
type Wire struct {
	name     string
	upstream string
	ln       net.Listener
	done     chan struct{}
	ctx      context.Context // ended by Close: bounds the dials to Redis
	stop     context.CancelFunc
	wg       sync.WaitGroup

	mu       sync.Mutex
	conns    map[*wireConn]struct{}
	trap     *trap
	sprung   []Sprung
	closed   bool
	tracer   func(WireEvent)
	nextConn int64
	cutUntil time.Time // Cut: connections accepted before then are closed at once
}

// trap is a one-shot action on the next request match accepts.
type trap struct {
	disarmed bool // set under the Wire's mu
	sprang   bool // set under the Wire's mu
	held     chan struct{}
	heldOnce sync.Once
	match    func(cmd string) bool
	action   string        // "refused", "delayed", "paused" or "killed"
	delay    time.Duration // for "delayed": how long the reply is held
	// before, for "paused", runs just before the request's reply is passed
	// on (it stops the client's process: faults.PauseAtReply); for
	// "killed", in place of passing it on (it has Redis kill the client's
	// connections: faults.KillClientAtReply).
	before func()
}

// Sprung records a trap that went off.
type Sprung struct {
	At     time.Time
	Cmd    string // the request's command name, upper-cased
	Action string // "refused" or "delayed <d>"
	trap   *trap
}

// refusedCommand is the name a refused request is renamed to: Redis
// answers "ERR unknown command 'lockcheck-refused' …" and runs nothing.
const refusedCommand = "lockcheck-refused"

// StartWire starts a Wire named name on 127.0.0.1:0 forwarding to
// upstream. Clients dial Addr().
func StartWire(name, upstream string) (*Wire, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start wire %s → %s: %w", name, upstream, err)
	}
	w := &Wire{name: name, upstream: upstream, ln: ln, done: make(chan struct{}), conns: map[*wireConn]struct{}{}}
	w.ctx, w.stop = context.WithCancel(context.Background())
	w.wg.Add(1)
	go w.accept()
	return w, nil
}

// Name is the Wire's name.
func (w *Wire) Name() string { return w.name }

// Addr is the host:port clients dial.
func (w *Wire) Addr() string { return w.ln.Addr().String() }

// Close stops the Wire: no new connections, every open one closed, every
// goroutine waited for. Idempotent.
func (w *Wire) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	close(w.done)
	w.stop()
	for c := range w.conns {
		c.close()
	}
	w.mu.Unlock()
	err := w.ln.Close()
	w.wg.Wait()
	return err
}

// arm sets a one-shot trap, replacing one not yet sprung.
func (w *Wire) arm(t *trap) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.trap = t
}

// disarm removes t if it is still armed, and keeps it from re-arming.
func (w *Wire) disarm(t *trap) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t.disarmed = true
	if w.trap == t {
		w.trap = nil
	}
}

// rearm puts back t, which sprang on a request Redis answered with an
// error, unless it was disarmed since or another trap is armed; its
// Sprung record goes.
func (w *Wire) rearm(t *trap) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.sprung) - 1; i >= 0; i-- {
		if w.sprung[i].trap == t {
			w.sprung = append(w.sprung[:i], w.sprung[i+1:]...)
			break
		}
	}
	t.sprang = false
	if !t.disarmed && w.trap == nil {
		w.trap = t
	}
}

// newTrap returns a trap, armed by nobody yet.
func newTrap(match func(cmd string) bool, action string, delay time.Duration) *trap {
	return &trap{match: match, action: action, delay: delay, held: make(chan struct{})}
}

// released marks the end of what t does to its request's reply: the reply
// was passed on, or its connection closed first. Idempotent.
func (t *trap) released() { t.heldOnce.Do(func() { close(t.held) }) }

// disarmWait disarms t and, if it sprang, waits until it has released its
// reply (or ctx ends), so a fault window covers the reply held back.
func (w *Wire) disarmWait(ctx context.Context, t *trap) error {
	w.disarm(t)
	w.mu.Lock()
	sprang := t.sprang
	w.mu.Unlock()
	if !sprang || t.delay == 0 {
		return nil
	}
	select {
	case <-t.held:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wire %s: a reply still held back: %w", w.name, ctx.Err())
	}
}

// take springs the armed trap on a request of cmd if it matches; on a
// subscribed connection only a refusal, or a delay of a subscription.
func (w *Wire) take(cmd string, subscribed bool) *trap {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.trap
	if t == nil || !t.match(cmd) || subscribed && t.action != "refused" && !SubscribeCommands(cmd) {
		return nil
	}
	w.trap, t.sprang = nil, true
	action := t.action
	if t.delay > 0 {
		action += " " + t.delay.String()
	}
	w.sprung = append(w.sprung, Sprung{At: time.Now(), Cmd: cmd, Action: action, trap: t})
	return t
}

// Sprung lists the traps that went off, in order.
func (w *Wire) Sprung() []Sprung {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Sprung(nil), w.sprung...)
}

// Cut drops the client's connections as a network that fails between it
// and Redis would: every open connection is closed at once (the client
// sees EOF on each, whatever it was doing; Redis sees its side close), and
// for outage every new connection is closed as soon as it is accepted.
// It returns at once; the client reconnects on its own, and the wire
// trace records each close and the first connection that stays open.
// Unlike Cutter, it reaches a client in any process that dials Addr.
func (w *Wire) Cut(outage time.Duration) {
	w.mu.Lock()
	w.cutUntil = time.Now().Add(outage)
	open := make([]*wireConn, 0, len(w.conns))
	for c := range w.conns {
		open = append(open, c)
	}
	w.mu.Unlock()
	for _, c := range open {
		c.close()
	}
}

// refusing reports whether a Cut's outage still runs.
func (w *Wire) refusing() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Now().Before(w.cutUntil)
}

// ClientAddrs are the addresses Redis sees for the Wire's open
// connections (the "addr" of CLIENT LIST).
func (w *Wire) ClientAddrs() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for c := range w.conns {
		out = append(out, c.up.LocalAddr().String())
	}
	return out
}

func (w *Wire) accept() {
	defer w.wg.Done()
	for {
		client, err := w.ln.Accept()
		if err != nil {
			return // closed
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.serve(client)
		}()
	}
}

// serve dials upstream for client and runs the connection's two pumps
// until either side ends.
func (w *Wire) serve(client net.Conn) {
	if w.refusing() {
		_ = client.Close()
		return
	}
	ctx, cancel := context.WithTimeout(w.ctx, 5*time.Second) // bounded, and ended by Close
	up, err := (&net.Dialer{}).DialContext(ctx, "tcp", w.upstream)
	cancel()
	if err != nil {
		_ = client.Close()
		return
	}
	c := &wireConn{w: w, client: client, up: up}
	if !w.add(c) {
		c.close()
		return
	}
	defer w.remove(c)
	var pumps sync.WaitGroup
	pumps.Add(1)
	go func() {
		defer pumps.Done()
		c.replies()
	}()
	c.requests()
	pumps.Wait()
}

// add registers c and traces its open, with the Wire's lock released (a
// tracer may take locks of its own: a WireSet's).
func (w *Wire) add(c *wireConn) bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	w.conns[c] = struct{}{}
	w.nextConn++
	c.id = w.nextConn
	f := w.tracer
	w.mu.Unlock()
	if f != nil {
		f(WireEvent{Kind: "open", Conn: c.id, Call: time.Now()})
	}
	return true
}

// remove traces c's unanswered requests and its close, then forgets it:
// once ClientAddrs no longer lists it, its close is in the trace.
func (w *Wire) remove(c *wireConn) {
	c.flush()
	w.trace(WireEvent{Kind: "close", Conn: c.id, Call: time.Now()})
	w.mu.Lock()
	delete(w.conns, c)
	w.mu.Unlock()
}
