package faults

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// clockFilePattern names a Clock's file after the process that made it, so
// that SweepStale can reset and remove a dead run's clocks.
var clockFilePattern = func() string { return fmt.Sprintf("lockcheck-clock-%d-%d-", self().pid, self().start) }

// Clock is a wall-clock offset shared with the processes that run through
// the clock shim with its Env: they see CLOCK_REALTIME, gettimeofday and
// time() moved by Offset; their monotonic clocks are untouched. Set takes
// effect at their next clock read. The offset lives in a small file mapped
// shared by lockcheck and every shimmed process; Close resets it to 0 and
// removes it. Methods are safe for concurrent use.
type Clock struct {
	path string
	shim string // the shim library

	mu  sync.RWMutex // Close against Set and Offset
	mem []byte       // the file's first bytes, mapped shared; nil once closed
	off *int64       // &mem[0]
}

// NewClock creates a clock at offset 0 in os.TempDir(), building the shim
// within ctx if needed (see ShimPath).
func NewClock(ctx context.Context) (*Clock, error) {
	shim, err := ShimPath(ctx)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", clockFilePattern())
	if err != nil {
		return nil, fmt.Errorf("clock file: %w", err)
	}
	c, err := mapClock(f)
	if err != nil {
		_ = os.Remove(f.Name())
		return nil, err
	}
	c.shim = shim
	return c, nil
}

// mapClock maps the first 8 bytes of f (growing it to 8 bytes if shorter)
// and closes f.
func mapClock(f *os.File) (*Clock, error) {
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("clock file: %w", err)
	} else if st.Size() < 8 {
		if err := f.Truncate(8); err != nil {
			return nil, fmt.Errorf("clock file: %w", err)
		}
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, 8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map clock file %s: %w", f.Name(), err)
	}
	// A mapping is page-aligned: the int64 at its start is aligned for atomics.
	return &Clock{path: f.Name(), mem: mem, off: (*int64)(unsafe.Pointer(&mem[0]))}, nil
}

// Path is the clock's file.
func (c *Clock) Path() string { return c.path }

// Env is what a process's environment needs to run through the shim on
// this clock (LD_PRELOAD and the file's path). It replaces any LD_PRELOAD
// of lockcheck's own environment.
func (c *Clock) Env() []string {
	return []string{"LD_PRELOAD=" + c.shim, EnvClockFile + "=" + c.path}
}

// Set moves the clock to d from real time (0 heals it). Set on a closed
// Clock does nothing.
func (c *Clock) Set(d time.Duration) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.mem != nil {
		atomic.StoreInt64(c.off, int64(d))
	}
}

// Offset is the current offset (0 once closed).
func (c *Clock) Offset() time.Duration {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.mem == nil {
		return 0
	}
	return time.Duration(atomic.LoadInt64(c.off))
}

// Close resets the offset to 0 (a process still running through the shim
// gets the real time back), unmaps and removes the file. It is idempotent.
func (c *Clock) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mem == nil {
		return nil
	}
	atomic.StoreInt64(c.off, 0)
	err := syscall.Munmap(c.mem)
	c.mem, c.off = nil, nil
	if rerr := os.Remove(c.path); rerr != nil && !os.IsNotExist(rerr) && err == nil {
		err = rerr
	}
	return err
}
