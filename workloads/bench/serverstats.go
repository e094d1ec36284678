package bench

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ServerCost is what Redis itself spent on the commands of some windows.
//
// CPUUsec is the server's main-thread CPU time (INFO cpu,
// used_cpu_user_main_thread + used_cpu_sys_main_thread, read before and
// after): everything one Redis core did for them, I/O and parsing
// included. Its reciprocal is the limit: the ops/s one core can serve.
//
// Commands is INFO commandstats (reset with CONFIG RESETSTAT before the
// window): per command (lower case: "evalsha", "publish", ...) the calls
// and the microseconds of execution. A script's own entry (eval, evalsha,
// fcall) includes the commands it calls, and those are counted under
// their own names too, so the entries do not add up: ScriptUsec sums the
// script entries only, execution without I/O.
type ServerCost struct {
	CPUUsec  int64
	Commands map[string]CommandCost `json:",omitempty"`
}

// CommandCost is one command's share of a ServerCost.
type CommandCost struct {
	Calls int64
	Usec  int64
}

// scriptCommands run scripts: their usec includes the commands they call.
var scriptCommands = map[string]bool{"eval": true, "evalsha": true, "eval_ro": true, "evalsha_ro": true, "fcall": true, "fcall_ro": true}

// ScriptUsec is the execution time of the scripts (commandstats).
func (c ServerCost) ScriptUsec() int64 {
	var n int64
	for name, cc := range c.Commands {
		if scriptCommands[name] {
			n += cc.Usec
		}
	}
	return n
}

// add pools o into c.
func (c *ServerCost) add(o ServerCost) {
	c.CPUUsec += o.CPUUsec
	if c.Commands == nil {
		c.Commands = map[string]CommandCost{}
	}
	for name, cc := range o.Commands {
		sum := c.Commands[name]
		sum.Calls += cc.Calls
		sum.Usec += cc.Usec
		c.Commands[name] = sum
	}
}

// PerOp returns usec per op of ops ops (a cycle, a no-op call): 0 when
// there are none.
func PerOp(usec, ops int64) float64 {
	if ops <= 0 {
		return 0
	}
	return float64(usec) / float64(ops)
}

// CallsPerOp describes the commands per op, most time first, as
// "evalsha 2.00, publish 1.00".
func (c ServerCost) CallsPerOp(ops int64) string {
	if ops <= 0 || len(c.Commands) == 0 {
		return ""
	}
	names := slices.SortedFunc(maps.Keys(c.Commands), func(a, b string) int {
		if d := c.Commands[b].Usec - c.Commands[a].Usec; d != 0 {
			return int(min(max(d, -1), 1))
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %.2f", n, float64(c.Commands[n].Calls)/float64(ops)))
	}
	return strings.Join(parts, ", ")
}

// ServerLimit is the ops/s one Redis core can serve when each op costs
// usecPerOp of the server's time: 1e6 / usecPerOp (0 when unknown).
func ServerLimit(usecPerOp float64) float64 {
	if usecPerOp <= 0 {
		return 0
	}
	return 1e6 / usecPerOp
}

// OfLimit is rate as a share of limit (0 when the limit is unknown).
func OfLimit(rate, limit float64) float64 {
	if limit <= 0 {
		return 0
	}
	return rate / limit
}

// meterCommands are the commands the meter sends itself, left out of a
// window's cost.
var meterCommands = map[string]bool{"info": true, "config|resetstat": true, "config": true}

// serverMeter reads a window's ServerCost: INFO cpu and CONFIG RESETSTAT
// before the window, INFO cpu and commandstats after. Windows run one at a time, so the
// server's counters hold that window's commands only (and the tail of its
// last calls in flight when it ended).
type serverMeter struct {
	rdb *redis.Client
}

func newServerMeter(opts *redis.Options) *serverMeter {
	o := *opts
	o.PoolSize = 1
	return &serverMeter{rdb: redis.NewClient(&o)}
}

func (m *serverMeter) close() { _ = m.rdb.Close() }

// meterRun is one window's measurement in progress (nil: not measured).
type meterRun struct {
	m      *serverMeter
	before string // INFO cpu before the window
}

// start reads the server's CPU time and resets its command counters just
// before a window; stop reads both after it. A server that refuses CONFIG
// RESETSTAT or INFO (a managed Redis) gives a nil cost, not an error: the
// window still counts. A nil meter measures nothing.
func (m *serverMeter) start(ctx context.Context) *meterRun {
	if m == nil {
		return nil
	}
	before, err := m.rdb.Info(ctx, "cpu").Result()
	if err == nil {
		err = m.rdb.ConfigResetStat(ctx).Err()
	}
	if err != nil {
		return nil
	}
	return &meterRun{m: m, before: before}
}

// stop returns the cost of the window since start (nil when not measured).
func (r *meterRun) stop(ctx context.Context) *ServerCost {
	if r == nil {
		return nil
	}
	after, err := r.m.rdb.Info(context.WithoutCancel(ctx), "cpu", "commandstats").Result()
	if err != nil {
		return nil
	}
	c := parseCommandStats(after)
	c.CPUUsec = mainThreadCPU(after) - mainThreadCPU(r.before)
	return &c
}

// mainThreadCPU reads the server's main-thread CPU time in microseconds
// from INFO cpu (the whole process's on servers without the main-thread
// fields, which run commands on one thread all the same).
func mainThreadCPU(info string) int64 {
	fields := map[string]float64{}
	for line := range strings.Lines(info) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if f, err := strconv.ParseFloat(v, 64); ok && err == nil {
			fields[k] = f
		}
	}
	user, ok1 := fields["used_cpu_user_main_thread"]
	sys, ok2 := fields["used_cpu_sys_main_thread"]
	if !ok1 || !ok2 {
		user, sys = fields["used_cpu_user"], fields["used_cpu_sys"]
	}
	return int64(math.Round((user + sys) * 1e6))
}

// parseCommandStats reads INFO commandstats lines such as
// "cmdstat_evalsha:calls=2,usec=15,usec_per_call=7.50,rejected_calls=0,failed_calls=0",
// leaving out the meter's own commands.
func parseCommandStats(info string) ServerCost {
	c := ServerCost{Commands: map[string]CommandCost{}}
	for line := range strings.Lines(info) {
		name, fields, ok := strings.Cut(strings.TrimSpace(line), ":")
		name, isStat := strings.CutPrefix(name, "cmdstat_")
		if !ok || !isStat || meterCommands[name] {
			continue
		}
		var cc CommandCost
		for f := range strings.SplitSeq(fields, ",") {
			k, v, _ := strings.Cut(f, "=")
			n, err := strconv.ParseInt(v, 10, 64)
			switch {
			case err != nil:
			case k == "calls":
				cc.Calls = n
			case k == "usec":
				cc.Usec = n
			}
		}
		c.Commands[name] = cc
	}
	return c
}
