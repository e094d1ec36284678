package impl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// ErrRetriesEnabled is reported by NewClient's Err (and by every lock call of
// such a Client) when the go-redis client may silently re-send commands:
// a retried acquire script double-counts a reentrant hold. Build the client
// with MaxRetries: -1 (ClusterClient: 0 or -1).
var ErrRetriesEnabled = errors.New("lock: go-redis client retries commands (set MaxRetries: -1)")

// Client is one Redisson client: an id (Redisson's per-client UUID), one
// pub/sub connection shared by all its locks, and the watchdogs of their
// holds. Make lock handles with Reentrant, Fenced, Fair or NewLocker.
//
// The go-redis client must not retry commands on its own (MaxRetries: -1;
// ContextTimeoutEnabled: true is recommended so ctx deadlines reach the
// socket): a lock script whose reply was lost has an unknown outcome, and the
// lock decides what to do about it (the unlock latch, resolving an acquire
// by reading the hold count). NewClient checks this for *redis.Client,
// *redis.ClusterClient and *redis.Ring and reports ErrRetriesEnabled.
//
// Close stops every watchdog (without unlocking, as a crashed process would)
// and the pub/sub connection, and waits for them. The Client does not own rdb.
type Client struct {
	rdb  redis.UniversalClient
	id   string
	opts options
	err  error // configuration error, returned by every lock call
	hub  *hub
	herd *jitter // delays of waiters that lost wake-ups (herd.go)

	closing chan struct{} // closed by Close

	renewals *renewer // the watchdogs of every hold (renewer.go)

	mu     sync.Mutex
	closed bool
}

// NewClient makes a Client on rdb. It does not touch the network: the
// pub/sub connection opens with the first wait.
func NewClient(rdb redis.UniversalClient, opts ...Option) *Client {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if o.clientID == "" {
		o.clientID = uuid.NewString()
	}
	if !o.jitterSeeded {
		o.jitterSeed = seedOf(o.clientID)
	}
	return &Client{
		rdb:      rdb,
		id:       o.clientID,
		opts:     o,
		err:      checkNoRetries(rdb),
		hub:      newHub(rdb, o.cleanupTimeout),
		herd:     newJitter(o.jitterSeed),
		closing:  make(chan struct{}),
		renewals: newRenewer(o.watchdogTimeout, o.clock),
	}
}

// checkNoRetries inspects the options of the go-redis client kinds it knows.
// Options() reports the normalised value: MaxRetries -1 becomes 0 on
// *redis.Client and *redis.Ring; ClusterClient uses 0 or -1 for none.
func checkNoRetries(rdb redis.UniversalClient) error {
	var n int
	switch c := rdb.(type) {
	case *redis.Client:
		n = c.Options().MaxRetries
	case *redis.ClusterClient:
		n = c.Options().MaxRetries
	case *redis.Ring:
		n = c.Options().MaxRetries
	default:
		return nil
	}
	if n > 0 {
		return fmt.Errorf("%w: MaxRetries is %d", ErrRetriesEnabled, n)
	}
	return nil
}

// ID is the client id, the prefix of every owner field this Client writes.
func (c *Client) ID() string { return c.id }

// Err reports a configuration error (ErrRetriesEnabled), or nil.
func (c *Client) Err() error { return c.err }

// Reentrant returns the handle of owner on the reentrant lock name (Redisson
// RLock). The owner token plays the role of Redisson's thread id: handles with
// the same Client and owner share holds.
func (c *Client) Reentrant(name, owner string) *ReentrantLock {
	return newReentrant(c, name, owner, false)
}

// Fenced returns the handle of owner on the fenced lock name (Redisson
// RFencedLock): a reentrant lock whose every grant also increments the token
// counter redisson_lock_token:{name}.
func (c *Client) Fenced(name, owner string) *FencedLock {
	return &FencedLock{l: newReentrant(c, name, owner, true)}
}

// NewLocker implements Maker with reentrant handles.
func (c *Client) NewLocker(name, owner string) Locker { return c.Reentrant(name, owner) }

// Close stops every watchdog of the Client's handles without unlocking and
// closes the shared pub/sub connection, waiting for both. Waiters return
// ErrClosed. It is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.closing)
	c.mu.Unlock()
	c.renewals.close()
	return c.hub.close()
}

// usable returns the configuration error or ErrClosed.
func (c *Client) usable() error {
	if c.err != nil {
		return c.err
	}
	select {
	case <-c.closing:
		return ErrClosed
	default:
		return nil
	}
}

// cleanupContext returns a fresh context bounded by the cleanup timeout, for
// work that must happen after the caller's context ended (undoing an acquire
// whose outcome was unknown, removing a fair-lock queue entry).
func (c *Client) cleanupContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), c.opts.cleanupTimeout)
}

// newRequestID returns Redisson's unlock request id: 16 random bytes in hex.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// Maker kinds for the harness registry.

type clientMaker struct {
	*Client
	newLocker func(c *Client, name, owner string) Locker
}

func (m clientMaker) NewLocker(name, owner string) Locker { return m.newLocker(m.Client, name, owner) }

func makerFunc(newLocker func(c *Client, name, owner string) Locker, opts []Option) MakerFunc {
	return func(_ context.Context, rdb redis.UniversalClient) (Maker, error) {
		c := NewClient(rdb, opts...)
		if err := c.Err(); err != nil {
			return nil, err
		}
		return clientMaker{Client: c, newLocker: newLocker}, nil
	}
}

// ReentrantMaker opens a Client with opts on each call and makes reentrant
// handles (Client.Reentrant). It fails with ErrRetriesEnabled when rdb
// retries commands.
func ReentrantMaker(opts ...Option) MakerFunc {
	return makerFunc(func(c *Client, name, owner string) Locker { return c.Reentrant(name, owner) }, opts)
}

// FencedMaker is ReentrantMaker for fenced handles (Client.Fenced); they
// implement Fenced.
func FencedMaker(opts ...Option) MakerFunc {
	return makerFunc(func(c *Client, name, owner string) Locker { return c.Fenced(name, owner) }, opts)
}
