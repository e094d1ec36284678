package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/redis/go-redis/v9"
)

// redisLogger takes go-redis's own log lines (a pool that failed to dial,
// a reconnect): lockcheck reports every error it acts on itself, so such a
// line would only repeat one in another format. It counts them and, with
// LOCKCHECK_REDIS_LOG=1, prints them to stderr.
type redisLogger struct {
	mu   sync.Mutex
	n    int
	w    io.Writer
	last string
}

// Printf implements go-redis's internal.Logging.
func (l *redisLogger) Printf(_ context.Context, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	l.last = fmt.Sprintf(format, v...)
	if l.w != nil {
		fmt.Fprintf(l.w, "go-redis: %s\n", l.last)
	}
}

// lines returns how many lines go-redis logged and the last one.
func (l *redisLogger) lines() (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.last
}

// redisLog is the one place go-redis logs to in the CLI (installRedisLog).
var redisLog = &redisLogger{}

// installRedisLog makes redisLog go-redis's logger, printing to stderr
// too with LOCKCHECK_REDIS_LOG=1.
func installRedisLog() {
	if os.Getenv("LOCKCHECK_REDIS_LOG") == "1" {
		redisLog.mu.Lock()
		redisLog.w = os.Stderr
		redisLog.mu.Unlock()
	}
	redis.SetLogger(redisLog)
}
