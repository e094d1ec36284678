package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// serverLoad is a snapshot of the server's counters.
type serverLoad struct {
	scripts  int64   // EVALSHA and EVAL calls
	commands int64   // all commands, those that scripts call included
	cpu      float64 // seconds of CPU (user + sys, main thread and others)
}

// serverCounts reads the server's commandstats and CPU time.
func serverCounts(b *testing.B, rdb *redis.Client) serverLoad {
	b.Helper()
	info, err := rdb.InfoMap(context.Background(), "commandstats", "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var l serverLoad
	for _, k := range []string{"used_cpu_user", "used_cpu_sys"} {
		x, _ := strconv.ParseFloat(info["CPU"][k], 64)
		l.cpu += x
	}
	for name, v := range info["Commandstats"] {
		calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
		n, _ := strconv.ParseInt(calls, 10, 64)
		l.commands += n
		if name == "cmdstat_evalsha" || name == "cmdstat_eval" {
			l.scripts += n
		}
	}
	return l
}

// reportServerLoad adds scripts/op, commands/op and server-µs/op (the
// server's CPU time per op) from counters taken before and after the loop.
func reportServerLoad(b *testing.B, rdb *redis.Client, before serverLoad) {
	after := serverCounts(b, rdb)
	n := float64(b.N)
	b.ReportMetric(float64(after.scripts-before.scripts)/n, "scripts/op")
	b.ReportMetric(float64(after.commands-before.commands-1)/n, "commands/op")
	b.ReportMetric((after.cpu-before.cpu)*1e6/n, "server-µs/op")
}

// BenchmarkCycle measures one uncontended lock/unlock cycle of every default
// subject (one worker with its own client), watchdog-renewed (the engine's
// default) and with an explicit lease, and the server work per cycle.
func BenchmarkCycle(b *testing.B) {
	s := redistest.Start(b, faults.ServerConfig{})
	stats := redis.NewClient(s.Options())
	defer stats.Close()
	for _, subj := range defaultSubjects(b) {
		for _, lease := range []time.Duration{0, 10 * time.Second} {
			label := "watchdog"
			if lease > 0 {
				label = lease.String()
			}
			b.Run(fmt.Sprintf("%s/lease=%s", subj.Name, label), func(b *testing.B) {
				ctx := context.Background()
				f, err := openFleet(ctx, &dialer{opts: s.Options()}, subj, 1, func(int) string { return "bench-cycle:" + subj.Name }, lease)
				if err != nil {
					b.Fatal(err)
				}
				defer f.close()
				l := f.lockers[0]
				before := serverCounts(b, stats)
				for b.Loop() {
					if err := l.Lock(ctx, lease); err != nil {
						b.Fatal(err)
					}
					if err := l.Unlock(ctx); err != nil {
						b.Fatal(err)
					}
				}
				reportServerLoad(b, stats, before)
			})
		}
	}
}

// BenchmarkNoopScript measures the ceiling's unit: one EVALSHA of the no-op
// script on a client configured like the workers'.
func BenchmarkNoopScript(b *testing.B) {
	s := redistest.Start(b, faults.ServerConfig{})
	rdb := redis.NewClient(s.Options())
	defer rdb.Close()
	ctx := context.Background()
	keys := []string{"bench-noop"}
	if err := noopScript.Run(ctx, rdb, keys).Err(); err != nil {
		b.Fatal(err)
	}
	before := serverCounts(b, rdb)
	for b.Loop() {
		if err := noopScript.EvalSha(ctx, rdb, keys).Err(); err != nil {
			b.Fatal(err)
		}
	}
	reportServerLoad(b, rdb, before)
}

// BenchmarkAnalyze measures the contention analysis of one window's log.
func BenchmarkAnalyze(b *testing.B) {
	for _, grants := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("grants=%d", grants), func(b *testing.B) {
			log, open := syntheticLog(rand.New(rand.NewPCG(1, 2)), 32, grants)
			for b.Loop() {
				analyze(32, log, open, time.Hour)
			}
		})
	}
}

// syntheticLog makes a plausible contended log: each grant goes to a random
// worker that asked a random while before the previous release.
func syntheticLog(rng *rand.Rand, workers, grants int) ([]grant, []request) {
	log := make([]grant, 0, grants)
	now := time.Duration(0)
	for range grants {
		req := max(now-time.Duration(rng.IntN(5000))*time.Microsecond, 0)
		now += time.Duration(50+rng.IntN(200)) * time.Microsecond
		log = append(log, grant{worker: rng.IntN(workers), requested: req, waiting: req, granted: now, released: now + 20*time.Microsecond})
		now += 20 * time.Microsecond
	}
	open := []request{{worker: 0, requested: now / 2, waiting: now / 2}}
	return log, open
}
