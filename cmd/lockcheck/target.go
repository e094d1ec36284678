package main

import (
	"context"
	"fmt"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads/target"
)

// openTarget starts a redis-server (redisURL == "") or connects to redisURL
// (--redis, its password from $LOCKCHECK_REDIS_PASSWORD when the URL has
// none) and checks that it answers.
func openTarget(ctx context.Context, redisURL string, persistence faults.Persistence) (*target.Target, error) {
	if redisURL == "" {
		return target.Start(ctx, persistence)
	}
	a, err := parseRedisFlag(redisURL)
	if err != nil {
		return nil, err
	}
	t, err := target.Connect(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("--redis %w", err)
	}
	return t, nil
}
