//go:build !redislock_v0_8

package peers

import (
	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"
)

// The parts of redislock's API that its releases changed, for v0.9 and
// later (github.com/redis/go-redis/v9, Options.Token). A build with the tag
// redislock_v0_8 uses redislock_api_v0_8.go instead: lockcheck builds that
// for redislock@v0.8.x (a generated module, see
// workloads/catalog/versions_go.go).

// redislockClient is redislock's client on the run's client.
func redislockClient(rdb redis.UniversalClient) (*redislock.Client, error) {
	return redislock.New(rdb), nil
}

// redislockOptions obtains with token as the lock's value, so that a
// repeated Obtain after an unread reply re-acquires and a failed attempt
// can be taken back.
func redislockOptions(token string, s redislock.RetryStrategy) *redislock.Options {
	return &redislock.Options{Token: token, RetryStrategy: s}
}
