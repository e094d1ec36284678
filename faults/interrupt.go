package faults

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Interrupter is what the runner exposes for interrupts, beside Clients.
//
// Interrupt(ctx, target, after) interrupts target's next call (lock,
// tryLock or unlock) that still runs `after` into it, the way
// Thread.interrupt() interrupts a Java thread blocked in one, or a
// cancelled context a Go call: it returns once it interrupted one, or
// when ctx ends (with ctx's error; nothing is interrupted after that). It
// does not wait for the call to end. The call ends as the lock's contract
// says: an interrupted acquire either was granted or left nothing behind;
// an interrupted unlock's outcome may be unknown.
type Interrupter interface {
	Interrupt(ctx context.Context, target string, after time.Duration) error
}

// ReplyInterrupter is an Interrupter that can also aim an interrupt inside
// a command: InterruptAtReply(ctx, target) interrupts target's next call
// when the reply to its first lock command (LockCommands) has come back
// from Redis, holding that reply until the interrupt landed in the client
// (for at most ReplyHold). The command has run; the caller is told of the
// interrupt before it could learn the command's answer. It returns as
// Interrupt does. A client with no RESP proxy is interrupted at once as
// its call starts.
type ReplyInterrupter interface {
	Interrupter
	InterruptAtReply(ctx context.Context, target string) error
}

// ReplyHold bounds how long InterruptAtReply holds the reply it aimed at:
// a client that learns of an interrupt only from its command's answer
// gets it after this.
const ReplyHold = time.Second

// InterruptAtReply returns a fault that, from Start, interrupts target's
// next call inside its first lock command (ReplyInterrupter); it starts and
// stops as Interrupt's does.
func InterruptAtReply(c ReplyInterrupter, target string) Fault {
	return interruptFault(target, "at a reply", func(ctx context.Context) error { return c.InterruptAtReply(ctx, target) })
}

// Interrupt returns a fault that, from Start, interrupts target's next call
// that still runs `after` into it; Start returns once it did, or, without
// an error, when the run ends first (a target that made no call meanwhile,
// such as a client process still starting, has nothing to interrupt).
// Stop does nothing: the call has ended or will end by itself. The
// recorded window runs from the arming to Stop.
func Interrupt(c Interrupter, target string, after time.Duration) Fault {
	return interruptFault(target, "", func(ctx context.Context) error { return c.Interrupt(ctx, target, after) })
}

// interruptFault is the client-interrupt fault on target whose Start runs
// interrupt (how says how it is aimed, for errors).
func interruptFault(target, how string, interrupt func(context.Context) error) Fault {
	return &fault{
		name: "client-interrupt", target: target,
		start: func(ctx context.Context) error {
			err := interrupt(ctx)
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return nil // the run ended before target made a call: nothing to interrupt
			}
			if err != nil {
				return fmt.Errorf("interrupt client %s%s: %w", target, strings.TrimSuffix(" "+how, " "), err)
			}
			return nil
		},
		stop: noop,
	}
}
