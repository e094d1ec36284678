package rediscover

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// DefaultBudget is the budget of each release's hunt when Config.Budget is
// zero.
const DefaultBudget = 10 * time.Minute

// ErrConfig marks a Config that cannot run; the error names the field.
var ErrConfig = errors.New("rediscover: bad config")

// HuntFunc runs one hunt: hunt.Run, or a fake in tests.
type HuntFunc func(ctx context.Context, cfg hunt.Config) (*hunt.Result, error)

// Observer hears what a rediscovery does, in order, from the goroutine
// that called Run; the hunts' own progress reaches its hunt.Observer.
type Observer interface {
	hunt.Observer
	// Hunting: the hunt of one release of bug starts (rel.Subject is
	// resolved), or is skipped (rel.NotRun says why).
	Hunting(bug Bug, side Side, rel Release)
	// Judged: bug's row is complete.
	Judged(row Row)
}

// Config is one rediscovery.
type Config struct {
	// Bugs are the catalog entries to hunt again (required).
	Bugs []Bug
	// Catalog is every catalog entry, the other bugs a release has among
	// them (knownAt): a find with one of their signatures is theirs (nil:
	// Bugs).
	Catalog []Bug
	// Budget is the budget of each release's hunt, the buggy and the
	// fixed alike (0: DefaultBudget).
	Budget time.Duration
	// RunDuration is the length of each plain run (0: hunt's default).
	RunDuration time.Duration
	// Seed is the first seed of every hunt, so both releases of a bug see
	// the same draws (0: derived from the clock; Report.Seed holds it).
	Seed int64
	// Out is the base directory of the hunts' runs ("": <os.TempDir()>/lockcheck).
	Out string
	// Registry resolves subject names (nil: catalog.Subjects).
	Registry *subject.Registry
	// StandIns maps a release's name, SUBJECT@VERSION, to the subject that
	// is run for it while the registry has no such name (say
	// "redisson@3.43.0" → "redisson-3.43"); a row says when one was used.
	StandIns map[string]string
	// Hunt runs each hunt (nil: hunt.Run).
	Hunt HuntFunc
	// Contrast, if > 0, is how many times a buggy release's find is
	// replayed on each release once both are hunted (Row.Contrast).
	Contrast int
	// Replay replays a find (nil: hunt.Replay).
	Replay ReplayFunc
	// Observer hears the progress (nil: nothing).
	Observer Observer

	now func() time.Time // the clock (tests: a fake one); nil: time.Now
}

// Run hunts each bug's buggy release, then its fixed release with the same
// seed and budget, and returns one row per bug, in Config.Bugs's order. It
// returns an error wrapping ErrConfig, and no report, for a config that
// cannot run; once started it returns the report of the rows done, with
// ctx's error when ctx ended first. A hunt that could not run is recorded
// in its row (Hunted.Err), not returned.
//
// Guarantees: every hunt uses hunt's defaults (the general scenario mix
// and plans, no judge, no scenario chosen for the bug); the releases of a
// bug are hunted from the same first seed with the same budget; a find
// counts only when its class Counts, and is the bug's only when it has
// the bug's signature (Bug.Signature).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if len(cfg.Bugs) == 0 {
		return nil, fmt.Errorf("%w: Bugs: none to hunt", ErrConfig)
	}
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	rep := &Report{Seed: cfg.Seed, Budget: cfg.Budget, RunDuration: cfg.RunDuration}
	defer rep.total()
	for _, b := range cfg.Bugs {
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		row := Row{Bug: b}
		row.Buggy = cfg.huntRelease(ctx, b, SideBuggy)
		row.Fixed = cfg.huntRelease(ctx, b, SideFixed)
		cfg.replayFind(ctx, &row)
		for cfg.huntOn(ctx, &row) {
			cfg.replayFind(ctx, &row)
		}
		row.judge()
		rep.Rows = append(rep.Rows, row)
		cfg.Observer.Judged(row)
	}
	return rep, nil
}

// resolve fills cfg's defaults and checks them (not Bugs).
func (cfg *Config) resolve() error {
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.Budget == 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.RunDuration == 0 {
		cfg.RunDuration = hunt.DefaultRunDuration
	}
	if cfg.Seed == 0 {
		cfg.Seed = cfg.now().UnixNano() % 1_000_000
	}
	cfg.fill()
	switch {
	case cfg.Budget < 0:
		return fmt.Errorf("%w: Budget %v: want a positive duration", ErrConfig, cfg.Budget)
	case cfg.Contrast < 0:
		return fmt.Errorf("%w: Contrast %d: want 0 or more replays", ErrConfig, cfg.Contrast)
	case cfg.RunDuration < hunt.MinRun || cfg.RunDuration > cfg.Budget:
		return fmt.Errorf("%w: RunDuration %v: want %v..Budget (%v)", ErrConfig, cfg.RunDuration, hunt.MinRun, cfg.Budget)
	}
	return nil
}

// fill sets the defaults of the hunt's and the replays' settings.
func (cfg *Config) fill() {
	if cfg.Registry == nil {
		cfg.Registry = catalog.Subjects
	}
	if cfg.Hunt == nil {
		cfg.Hunt = hunt.Run
	}
	if cfg.Replay == nil {
		cfg.Replay = hunt.Replay
	}
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join(os.TempDir(), "lockcheck")
	}
}

// release resolves the subject run for b's release on side: its name
// SUBJECT@VERSION, or the stand-in given for it, which the registry must
// hold; NotRun says why not when it does not.
func (cfg *Config) release(b Bug, side Side) Release {
	v := b.Buggy
	if side == SideFixed {
		v = b.Fixed
	}
	if v == "" {
		return Release{NotRun: "an open bug: no release fixes it (" + b.Upstream + ")"}
	}
	return cfg.named(b.Release(v), v)
}

// named resolves the subject run for the release called name
// (SUBJECT@VERSION, version v): name itself or its stand-in.
func (cfg *Config) named(name, v string) Release {
	rel := Release{Name: name, Version: v}
	rel.Subject = rel.Name
	if s, ok := cfg.StandIns[rel.Name]; ok {
		rel.Subject, rel.StandIn = s, true
	}
	if scenario.Known(rel.Subject) {
		return rel // a kind with a runner of its own: the hunt runs it there
	}
	if _, err := cfg.Registry.Lookup(rel.Subject); errors.Is(err, subject.ErrUnknown) {
		rel.NotRun = fmt.Sprintf("no subject %s in the registry", rel.Subject)
	} else if err != nil {
		rel.NotRun = fmt.Sprintf("subject %s: %v", rel.Subject, err)
	}
	return rel
}

// catalog is Config.Catalog, or Bugs.
func (cfg *Config) catalog() []Bug {
	if cfg.Catalog != nil {
		return cfg.Catalog
	}
	return cfg.Bugs
}

type nopObserver struct{ hunt.NopObserver }

func (nopObserver) Hunting(Bug, Side, Release) {}
func (nopObserver) Judged(Row)                 {}
