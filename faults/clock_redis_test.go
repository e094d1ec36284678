package faults_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// serverSkew is how far the server's TIME is from ours.
func serverSkew(t *testing.T, ctx context.Context, rdb *redis.Client) time.Duration {
	t.Helper()
	before := time.Now()
	st, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	return st.Sub(before.Add(time.Since(before) / 2))
}

// A redis-server run through the shim expires a 10 s key at once when its
// clock jumps 20 s ahead, and a backward jump makes a key outlive its TTL.
func TestClockShimRedisJump(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{ClockShim: true})
	rdb := redistest.Client(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := rdb.Set(ctx, "k", "v", 10*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	s.Clock().Set(20 * time.Second)
	if d := serverSkew(t, ctx, rdb); d < 19*time.Second || d > 21*time.Second {
		t.Errorf("server TIME %v from ours after a +20 s jump", d)
	}
	if n, err := rdb.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Errorf("10 s key after a +20 s jump: exists %d, %v; want gone", n, err)
	}

	s.Clock().Set(-20 * time.Second)
	if err := rdb.Set(ctx, "b", "v", 10*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	s.Clock().Set(0) // the key was set at real time - 20 s: it now has 10 s - 20 s left, and expires
	if n, err := rdb.Exists(ctx, "b").Result(); err != nil || n != 0 {
		t.Errorf("key set 20 s in the past with a 10 s TTL: exists %d, %v; want gone", n, err)
	}
	if !s.Running() {
		t.Fatal("redis-server died under the shim")
	}
}

// Offset 0 changes nothing: the server's TIME is ours and TTLs run at the
// real rate.
func TestClockShimRedisZeroInert(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{ClockShim: true})
	rdb := redistest.Client(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if d := serverSkew(t, ctx, rdb); d < -time.Second || d > time.Second {
		t.Errorf("server TIME %v from ours at offset 0", d)
	}
	if err := rdb.Set(ctx, "k", "v", 10*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	if ttl, err := rdb.PTTL(ctx, "k").Result(); err != nil || ttl < 9*time.Second || ttl > 10*time.Second {
		t.Errorf("PTTL of a 10 s key at offset 0: %v, %v", ttl, err)
	}
}

// A shimmed redis-server keeps serving while its clock swings both ways
// many times a second (the strobe), with Lua scripts, expiries and
// background cron in play, and its log shows no crash.
func TestClockShimRedisNoCrash(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{ClockShim: true})
	rdb := redistest.Client(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	f := faults.ClockStrobe([]faults.Offsetter{s.Clock()}, "server", -3*time.Second, 3*time.Second, 2*time.Millisecond)
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		k := fmt.Sprintf("k%d", i%50)
		if err := rdb.Eval(ctx, "redis.call('set', KEYS[1], ARGV[1], 'px', 50); return redis.call('pttl', KEYS[1])", []string{k}, i).Err(); err != nil {
			t.Fatalf("op %d under strobe: %v", i, err)
		}
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if !s.Running() {
		t.Fatal("redis-server died under the shim")
	}
	if d := serverSkew(t, ctx, rdb); d < -time.Second || d > time.Second {
		t.Errorf("server TIME %v from ours after the strobe healed", d)
	}
	log, _ := os.ReadFile(filepath.Join(s.Dir(), "redis.log"))
	if slices.ContainsFunc([]string{"crashed", "recursive", "Aborted"}, func(w string) bool { return bytes.Contains(log, []byte(w)) }) {
		t.Errorf("redis log shows a crash:\n%s", log)
	}
}

// A run that dies leaves its clock file behind, maybe still mapped by a
// shimmed process that outlived it: SweepStale resets the offset (the
// survivor gets the real time back) and removes the file; a live run's
// clock is left alone.
func TestSweepStaleHealsClocks(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{ClockShim: true})
	rdb := redistest.Client(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	tmp := t.TempDir()
	// The server's clock file, renamed as a dead run's (same inode: the
	// server keeps reading it).
	stale := filepath.Join(tmp, fmt.Sprintf("lockcheck-clock-%d-0-1", exitedPid(t)))
	if err := os.Rename(s.Clock().Path(), stale); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(tmp, fmt.Sprintf("lockcheck-clock-%d-%d-2", os.Getpid(), faults.SelfStart()))
	if err := os.WriteFile(live, make([]byte, 8), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Clock().Set(time.Hour)
	if d := serverSkew(t, ctx, rdb); d < 59*time.Minute {
		t.Fatalf("server TIME %v from ours, want +1h", d)
	}
	sw, err := faults.SweepStale(ctx, tmp)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sw.Clocks, []string{stale}) {
		t.Errorf("swept clocks %v, want [%s]", sw.Clocks, stale)
	}
	if d := serverSkew(t, ctx, rdb); d < -time.Second || d > time.Second {
		t.Errorf("server TIME %v from ours after the sweep, want healed", d)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale clock file still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("live run's clock file swept: %v", err)
	}
}

// exitedPid returns the pid of a process that has exited.
func exitedPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
