package main

import (
	"os"

	"github.com/lockcheck/lockcheck/faults"
)

// Environment variables lockcheck reads passwords from: never a flag, whose
// value every local user can read in ps.
const (
	envRedisPassword    = "LOCKCHECK_REDIS_PASSWORD"
	envSentinelPassword = "LOCKCHECK_SENTINEL_PASSWORD"
)

// parseRedisFlag parses --redis. A password in $LOCKCHECK_REDIS_PASSWORD is
// used when the URL carries none (a host:port, or a redis:// URL without
// one); a password in the URL wins, so that one command line can name a
// deployment whose password differs from the environment's.
func parseRedisFlag(redisURL string) (*faults.RedisAddr, error) {
	a, err := faults.ParseRedisAddr(redisURL)
	if err != nil {
		return nil, usagef("--redis: %v", err)
	}
	if pw := os.Getenv(envRedisPassword); pw != "" && !a.HasPassword() {
		a = a.WithPassword(pw)
	}
	return a, nil
}
