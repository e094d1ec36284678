package impl

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// MemberNames returns the names of the n member locks of the multilock
// name: name itself, then name:m1 … name:m{n-1}. Member 0 is the name
// itself so that a plain lock on name and the multilock name contend for
// one key: in a mixed fleet the two exclude each other, and a history
// records the multilock's ops under the name of its first member.
func MemberNames(name string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = name
		if i > 0 {
			out[i] = name + ":m" + strconv.Itoa(i)
		}
	}
	return out
}

// MultiLockMaker returns a MakerFunc whose handles are MultiLocks (or, with
// redlock, RedissonRedLocks) over n members made by member on the same
// client: the handle (name, owner) holds member handles (MemberNames(name,
// n)[i], owner). seed seeds Lock's random waits, mixed with each handle's
// owner. Closing the Maker closes the members' Maker.
func MultiLockMaker(member MakerFunc, n int, redlock bool, seed uint64) MakerFunc {
	return func(ctx context.Context, rdb redis.UniversalClient) (Maker, error) {
		if n < 1 {
			return nil, fmt.Errorf("multilock: %d members: %w", n, ErrNoMembers)
		}
		inner, err := member(ctx, rdb)
		if err != nil {
			return nil, err
		}
		return &multiLockMaker{inner: inner, n: n, redlock: redlock, seed: seed}, nil
	}
}

type multiLockMaker struct {
	inner   Maker
	n       int
	redlock bool
	seed    uint64
}

func (m *multiLockMaker) NewLocker(name, owner string) Locker {
	names := MemberNames(name, m.n)
	locks := make([]Locker, len(names))
	for i, mn := range names {
		locks[i] = m.inner.NewLocker(mn, owner)
	}
	h := fnv.New64a()
	h.Write([]byte(owner))
	opt := WithMultiLockSeed(m.seed ^ h.Sum64())
	if m.redlock {
		return NewRedissonRedLock(name, locks, opt)
	}
	return NewMultiLock(name, locks, opt)
}

func (m *multiLockMaker) Close() error {
	if m.inner == nil {
		return errors.New("multilock: maker not open")
	}
	return m.inner.Close()
}
