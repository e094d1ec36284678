package locktest

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// Budgets of Run: under -short, and otherwise. $LOCKCHECK_BUDGET (a Go
// duration) overrides them and Budget.
const (
	ShortBudget   = 8 * time.Second
	DefaultBudget = 60 * time.Second
)

// EnvBudget names the variable that sets the budget of every Run and Hunt
// (a Go duration such as 10m), for nightly runs.
const EnvBudget = "LOCKCHECK_BUDGET"

// EnvRedis names the variable that points Run at an existing Redis (a URL
// such as redis://user:pass@host:6379/0) instead of the redis-servers it
// starts; only the scenarios whose faults go through Redis commands run
// there.
const EnvRedis = "LOCKCHECK_REDIS"

// Option tunes Run and Hunt.
type Option func(*config)

type config struct {
	budget    time.Duration
	scenarios []string
	seed      int64
}

// Budget sets how long Run may take in all (runs, checks and shrinking),
// in place of ShortBudget and DefaultBudget. $LOCKCHECK_BUDGET still
// overrides it.
func Budget(d time.Duration) Option { return func(c *config) { c.budget = d } }

// Scenarios runs only the named scenarios (see `lockcheck scenarios`); each
// must be one Run runs for the lock (must-pass or unsafe), else Run
// fails. Hunt draws only those of them it would draw.
func Scenarios(names ...string) Option {
	return func(c *config) { c.scenarios = append(c.scenarios, names...) }
}

// Seed sets the first seed of Hunt's draws and of Run's draws in each
// scenario (0: from the clock; the seed used is logged). The flag
// -locktest.seed overrides it for Run: a failure's report prints the one
// that draws the failure first.
func Seed(n int64) Option { return func(c *config) { c.seed = n } }

// newConfig applies opts over the mode's defaults and the environment.
func newConfig(opts []Option) (config, error) {
	c := config{budget: DefaultBudget}
	if testing.Short() {
		c.budget = ShortBudget
	}
	for _, o := range opts {
		o(&c)
	}
	if v := os.Getenv(EnvBudget); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("locktest: $%s=%q: want a positive Go duration such as 10m", EnvBudget, v)
		}
		c.budget = d
	}
	if c.budget <= 0 {
		return c, fmt.Errorf("locktest: budget %v: want > 0", c.budget)
	}
	return c, nil
}
