package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// LockCommands matches the commands a lock's acquire, renewal and release
// are made of: scripts and functions, and the expiry and SET commands of
// locks without scripts. PING, pub/sub and connection set-up never match.
func LockCommands(cmd string) bool {
	return slices.Contains([]string{
		"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO",
		"SET", "PEXPIRE", "EXPIRE", "PEXPIREAT", "EXPIREAT", "GETEX", "DEL", "UNLINK",
	}, cmd)
}

// SubscribeCommands matches the commands that subscribe a connection to
// a channel: a lock's waiter subscribes to the lock's channel to hear of
// its release.
func SubscribeCommands(cmd string) bool {
	return slices.Contains([]string{"SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE"}, cmd)
}

// RefuseSubscribe returns a fault that has Redis refuse one subscription
// of w's client ("refuse-subscribe"): from Start on, the first SUBSCRIBE,
// PSUBSCRIBE or SSUBSCRIBE any of its connections sends, subscribed
// already or not, is renamed to an unknown command, so Redis subscribes it
// to nothing and answers with an error. A waiter that meant to hear of a
// release that way must still be answered within its wait.
func RefuseSubscribe(w *Wire) Fault {
	return wireTrap(w, "refuse-subscribe", func() *trap { return newTrap(SubscribeCommands, "refused", 0) })
}

// SlowSubscribe returns a fault that holds back one subscription of w's
// client by delay ("slow-subscribe"): from Start on, the first SUBSCRIBE,
// PSUBSCRIBE or SSUBSCRIBE any of its connections sends reaches Redis, but
// the connection's next frame from Redis (the subscription's confirmation,
// or a message before it) and every later one reach the client delay late.
// With delay past the client's subscription timeout, the client gives up a
// subscription that then completes. Stop returns once the frame held back
// has been passed on (or its connection closed).
func SlowSubscribe(w *Wire, delay time.Duration) Fault {
	return wireTrap(w, "slow-subscribe", func() *trap { return newTrap(SubscribeCommands, "delayed", delay) })
}

// RefuseOnce returns a fault that has Redis refuse one command of w's
// client: from Start on, the first request that match accepts, on any of
// the client's connections, is renamed to an unknown command, so Redis
// runs nothing and answers it with an error, in order with the
// connection's other replies. Everything else goes through. Aimed at a
// holder whose section outlasts a renewal period, it fails exactly one
// renewal ("refuse-once"): a watchdog must retry at its next tick. Stop
// disarms a trap that has not sprung; w.Sprung says whether it did.
func RefuseOnce(w *Wire, match func(cmd string) bool) Fault {
	return wireTrap(w, "refuse-once", func() *trap { return newTrap(match, "refused", 0) })
}

// SlowReply returns a fault that holds back one reply of w's client by
// delay: from Start on, the first request that match accepts reaches
// Redis and runs, but its reply (and every later reply on its connection)
// reaches the client delay late. With delay past the client's read
// timeout, the caller sees a timeout for a command that ran
// ("slow-reply"). A matching request that Redis answers with an error ran
// nothing (NOSCRIPT, say, before the client's EVAL): its reply passes at
// once and the trap waits for the next one. Stop returns once a reply held
// back has been passed on (or its connection closed), so the fault's
// window covers the delay: a grant learned that late may have outlived its
// lease. Stop disarms a trap that has not sprung; a reply
// already held is released when its delay ends.
func SlowReply(w *Wire, match func(cmd string) bool, delay time.Duration) Fault {
	return wireTrap(w, "slow-reply", func() *trap { return newTrap(match, "delayed", delay) })
}

func wireTrap(w *Wire, name string, newTrap func() *trap) Fault {
	var t *trap
	return &fault{name: name, target: w.Name(),
		start: func(context.Context) error {
			t = newTrap()
			w.arm(t)
			return nil
		},
		stop: func(ctx context.Context) error {
			if t == nil {
				return nil
			}
			armed := t
			t = nil
			return w.disarmWait(ctx, armed)
		},
	}
}

// Doer sends one command (a *redis.Client, or any UniversalClient).
type Doer interface {
	Do(ctx context.Context, args ...any) *redis.Cmd
}

// KillClient returns a fault that has Redis kill every connection of w's
// client (CLIENT KILL ADDR, sent by admin, a client that does not go
// through w), leaving the client's process running: its requests in
// flight fail and it must reconnect on its own ("client-conn-kill"). Stop
// does nothing: the kill is instantaneous.
func KillClient(w *Wire, admin Doer) Fault {
	return &fault{name: "client-conn-kill", target: w.Name(),
		start: func(ctx context.Context) error {
			addrs, err := killConns(ctx, w, admin)
			awaitClosed(ctx, w, addrs)
			return err
		},
		stop: func(context.Context) error { return nil },
	}
}

// killTimeout bounds a kill that runs in a Wire's reply pump, where no
// caller's context reaches.
const killTimeout = 5 * time.Second

// KillClientAtReply returns KillClient aimed at a request in flight
// ("client-conn-kill"): Start arms a trap on w and waits for the next
// request of w's client that match accepts (a holder's renewal, say).
// That request reaches Redis and runs; in place of its reply, Redis kills
// every connection of the client, so the caller learns nothing of a
// command that took effect. A request Redis answers with an error ran
// nothing (NOSCRIPT before a client's EVAL): its reply passes and the
// trap waits for the next one. When no such request comes within within,
// Start kills at once, as KillClient does. The fault's window opens at the
// kill (Beginner); Start returns once the Wire saw the connections close.
// Stop does nothing.
func KillClientAtReply(w *Wire, admin Doer, match func(cmd string) bool, within time.Duration) Fault {
	var began beganAt
	return &fault{name: "client-conn-kill", target: w.Name(), beganOf: began.began,
		start: func(ctx context.Context) error {
			killed := make(chan kill, 1)
			t := newTrap(match, "killed", 0)
			t.before = func() { // in the reply pump: kill, never wait for the closes
				began.mark()
				kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
				defer cancel()
				addrs, err := killConns(kctx, w, admin)
				killed <- kill{addrs, err}
			}
			w.arm(t)
			k, ok := awaitKill(ctx, w, t, killed, within)
			if !ok {
				began.mark()
				k.addrs, k.err = killConns(ctx, w, admin)
			}
			awaitClosed(ctx, w, k.addrs)
			return k.err
		},
		stop: func(context.Context) error { return nil },
	}
}

// kill is what a kill did: the connections it killed, and its error.
type kill struct {
	addrs []string
	err   error
}

// awaitKill waits for the kill of t, armed on w, for at most within (or
// until ctx ends): whether it killed, and what it did. It did not when t
// had not sprung (it is disarmed now and will not), or when its request's
// connection closed before the reply came.
func awaitKill(ctx context.Context, w *Wire, t *trap, killed <-chan kill, within time.Duration) (kill, bool) {
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case k := <-killed:
		return k, true
	case <-timer.C:
	case <-ctx.Done():
	}
	w.disarm(t)
	w.mu.Lock()
	sprang := t.sprang
	w.mu.Unlock()
	if !sprang {
		return kill{}, false
	}
	select {
	case k := <-killed:
		return k, true
	case <-t.held:
	}
	// held closes after a kill has sent what it did (wireConn.drop), or
	// when the connection closed before the reply came: then none ran.
	select {
	case k := <-killed:
		return k, true
	default:
		return kill{}, false
	}
}

// killConns has Redis kill every connection of w's client, by admin, and
// returns their addresses.
func killConns(ctx context.Context, w *Wire, admin Doer) ([]string, error) {
	var errs []error
	addrs := w.ClientAddrs()
	for _, addr := range addrs {
		err := admin.Do(ctx, "CLIENT", "KILL", "ADDR", addr).Err()
		if err != nil && !strings.Contains(err.Error(), "No such client") {
			errs = append(errs, fmt.Errorf("client kill addr %s: %w", addr, err))
		}
	}
	return addrs, errors.Join(errs...)
}

// closeTimeout bounds how long a kill waits to see its connections close.
const closeTimeout = time.Second

// awaitClosed polls until none of addrs is a connection of w, for at most
// closeTimeout (or until ctx ends): a window that ends then holds the
// closes its kill caused, as the Wire's trace records them.
func awaitClosed(ctx context.Context, w *Wire, addrs []string) {
	deadline := time.Now().Add(closeTimeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if !slices.ContainsFunc(w.ClientAddrs(), func(a string) bool { return slices.Contains(addrs, a) }) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// PauseAtReply arms a one-shot trap on w: the reply to the next request
// that match accepts, on any of w's connections, is passed on only after
// before has run (before stops the client's process: its threads then
// stand between that reply and what they do next, as a pause that lands
// there would leave them). A request Redis answers with an error springs
// it too. disarm removes the trap and reports whether it had sprung on a
// request (its before runs, or ran, when that request's reply comes).
func (w *Wire) PauseAtReply(match func(cmd string) bool, before func()) (disarm func() bool) {
	t := newTrap(match, "paused", 0)
	t.before = before
	w.arm(t)
	return func() bool {
		w.disarm(t)
		w.mu.Lock()
		defer w.mu.Unlock()
		return t.sprang
	}
}

// NotSubscribe accepts every command but a subscription's: the commands
// whose replies are paired with them.
func NotSubscribe(cmd string) bool { return !SubscribeCommands(cmd) }
