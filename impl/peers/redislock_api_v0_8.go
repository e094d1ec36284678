//go:build redislock_v0_8

package peers

import (
	"github.com/bsm/redislock"
	redis9rc "github.com/go-redis/redis/v9"
	"github.com/redis/go-redis/v9"
)

// The parts of redislock's API that its releases changed, for v0.8.x
// (built with the tag redislock_v0_8): a client of go-redis v9's release
// candidates (github.com/go-redis/redis/v9), and no Options.Token: the
// lock's value is the library's own random token, so an attempt that ended
// in an error cannot be taken back (it runs out with its lease).

// redislockClient is redislock's client on a go-redis v9 release
// candidate's client to the run's client's server.
func redislockClient(rdb redis.UniversalClient) (*redislock.Client, error) {
	o, err := oneServer(rdb, "redislock v0.8 (go-redis v9 rc)")
	if err != nil {
		return nil, err
	}
	return redislock.New(redis9rc.NewClient(&redis9rc.Options{
		Addr: o.Addr, Username: o.Username, Password: o.Password, DB: o.DB, MaxRetries: -1,
		DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout, PoolSize: o.PoolSize,
	})), nil
}

// redislockOptions: the strategy only (these releases choose the value).
func redislockOptions(_ string, s redislock.RetryStrategy) *redislock.Options {
	return &redislock.Options{RetryStrategy: s}
}
