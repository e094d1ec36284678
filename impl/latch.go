package impl

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Messages on a latch's channel (Redisson's CountDownLatchPubSub).
const (
	latchZeroMessage = 0 // the count reached 0: waiters return
	latchNewMessage  = 1 // a new count was set
)

// RLatch is a handle on a Redisson RCountDownLatch: the count at key name,
// set by trySetCount and decremented by countDown (both Redisson's own
// scripts, latch_*.lua), deleted when it reaches 0, and
// redisson_countdownlatch__channel__{name}, where the 0 is published.
//
// Guarantees: Await returns true only after it read a count of 0 (the
// latch was open at some instant during the call); a waiter reads the
// count again on every message and subscription, and at the latest one
// watchdog timeout after its last read.
type RLatch struct {
	c         *Client
	name      string
	channel   string
	countDown *redis.Script
}

// Latch returns the handle of the RCountDownLatch name.
func (c *Client) Latch(name string) *RLatch { return c.LatchWith(name, nil) }

// LatchWith returns the handle of the RCountDownLatch name whose countDown
// runs script (KEYS, ARGV and reply of latch_countdown.lua; nil:
// Redisson's). Only deliberately broken latches (impl/mutants) set one.
func (c *Client) LatchWith(name string, countDown *redis.Script) *RLatch {
	if countDown == nil {
		countDown = latchCountDown
	}
	return &RLatch{c: c, name: name, channel: LatchChannelName(name), countDown: countDown}
}

// TrySetCount implements Latch.
func (l *RLatch) TrySetCount(ctx context.Context, n int64) (bool, error) {
	if err := l.c.usable(); err != nil {
		return false, err
	}
	keys := []string{l.name, l.channel}
	ok, err := latchTrySetCount.Run(ctx, l.c.scripter(false), keys, latchNewMessage, n, publishCommand).Int64()
	if err != nil {
		return false, fmt.Errorf("latch %q: %w", l.name, err)
	}
	return ok == 1, nil
}

// CountDown implements Latch.
func (l *RLatch) CountDown(ctx context.Context) error {
	if err := l.c.usable(); err != nil {
		return err
	}
	keys := []string{l.name, l.channel}
	if err := l.countDown.Run(ctx, l.c.scripter(false), keys, latchZeroMessage, publishCommand).Err(); err != nil {
		return fmt.Errorf("latch %q: %w", l.name, err)
	}
	return nil
}

// Count implements Latch (Redisson's getCount: GET, 0 when missing).
func (l *RLatch) Count(ctx context.Context) (int64, error) {
	if err := l.c.usable(); err != nil {
		return 0, err
	}
	n, err := l.c.rdb.Get(ctx, l.name).Int64()
	if isNil(err) {
		return 0, nil
	}
	return n, err
}

// Await implements Latch. ctx's end is an error wrapping ErrNotObtained.
func (l *RLatch) Await(ctx context.Context, timeout time.Duration) (bool, error) {
	if err := l.c.usable(); err != nil {
		return false, err
	}
	try := func(ctx context.Context) (bool, time.Duration, error) {
		n, err := l.Count(ctx)
		return err == nil && n <= 0, -1, err
	}
	switch out, err := l.c.waitAcquire(ctx, l.channel, timeout, nil, try); out {
	case waitAcquired:
		return true, nil
	case waitTimedOut:
		return false, nil
	case waitUncertain:
		return false, fmt.Errorf("latch %q: await: %w", l.name, err)
	default: // ctx ended (wrapping ErrNotObtained) or the Client closed
		return false, err
	}
}
