package catalog

import (
	"context"
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
)

// dirLocks are the folders being built by this process: one channel of
// capacity 1 per folder, held while its build runs.
var dirLocks sync.Map // string -> chan struct{}

// lockPoll is how often lockDir retries a folder another process holds.
const lockPoll = 200 * time.Millisecond

// lockDir takes the build lock of dir: first this process's (one goroutine
// per folder), then an exclusive flock on the folder itself, which another
// lockcheck building the same driver holds. It waits until both are free
// or ctx is done; unlock releases both.
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
	v, _ := dirLocks.LoadOrStore(dir, make(chan struct{}, 1))
	held := v.(chan struct{})
	select {
	case held <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	f, err := os.Open(dir)
	if err != nil {
		<-held
		return nil, err
	}
	release := func() { f.Close(); <-held }
	t := time.NewTicker(lockPoll)
	defer t.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return release, nil // closing f releases the flock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			release()
			return nil, err
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			release()
			return nil, ctx.Err()
		}
	}
}
