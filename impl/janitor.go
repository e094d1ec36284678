package impl

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// janitorBatch is the most latch keys one pipeline deletes.
const janitorBatch = 256

// latchJanitor deletes the unlock latches of unlock calls that got their
// answer on the first attempt, in pipelined batches off the unlock path
// (Redisson sends this DEL asynchronously too), so a lock/unlock cycle costs
// two round trips, not three. It belongs to the Client: started by the first
// unlock, flushed and stopped by Close. A latch it drops (queue full, error)
// simply expires on its TTL.
type latchJanitor struct {
	rdb     redis.UniversalClient
	timeout time.Duration
	keys    chan string
	stop    chan struct{}
	done    chan struct{}
}

func newLatchJanitor(rdb redis.UniversalClient, timeout time.Duration) *latchJanitor {
	j := &latchJanitor{
		rdb:     rdb,
		timeout: timeout,
		keys:    make(chan string, 4*janitorBatch),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go j.run()
	return j
}

// add queues a latch key for deletion without blocking.
func (j *latchJanitor) add(key string) {
	select {
	case j.keys <- key:
	default:
	}
}

// close deletes what is queued and stops the goroutine, waiting for it.
func (j *latchJanitor) close() {
	close(j.stop)
	<-j.done
}

func (j *latchJanitor) run() {
	defer close(j.done)
	batch := make([]string, 0, janitorBatch)
	for {
		select {
		case k := <-j.keys:
			batch = append(batch[:0], k)
		case <-j.stop:
			batch = batch[:0]
			for len(j.keys) > 0 && len(batch) < janitorBatch {
				batch = append(batch, <-j.keys)
			}
			j.flush(batch)
			return
		}
		for len(batch) < janitorBatch && len(j.keys) > 0 {
			batch = append(batch, <-j.keys)
		}
		j.flush(batch)
	}
}

func (j *latchJanitor) flush(batch []string) {
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), j.timeout)
	defer cancel()
	// One DEL per key: in a cluster the latches of different locks live in
	// different slots, and the pipeline splits them per node.
	_, _ = j.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range batch {
			p.Del(ctx, k)
		}
		return nil
	})
}
