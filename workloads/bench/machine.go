package bench

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/results"
)

func describeMachine(ctx context.Context, opts *redis.Options) Machine {
	return Machine{
		OS:           runtime.GOOS,
		Arch:         runtime.GOARCH,
		CPUs:         runtime.NumCPU(),
		CPU:          cpuModel(),
		GoVersion:    runtime.Version(),
		RedisVersion: redisVersion(ctx, opts),
		Commit:       results.BuildCommit(),
	}
}

// cpuModel reads the first "model name" of /proc/cpuinfo ("" elsewhere).
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
