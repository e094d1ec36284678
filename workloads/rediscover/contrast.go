package rediscover

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// ReplayFunc replays one draw n times on a subject: hunt.Replay, or a fake
// in tests.
type ReplayFunc func(ctx context.Context, cfg hunt.Config, d hunt.Draw, n int) ([]hunt.Trial, error)

// Contrast is the buggy release's find, its shrunk draw (the same seed,
// duration and plan, or the same scenario), replayed on both releases: the
// same plan, where the two hunts may have drawn different ones. A find that
// fails again on the buggy release and never on the fixed one is the
// release's bug by this plan's measure, whatever other bugs the fixed
// release still has.
type Contrast struct {
	// Runs is the replays made on each release.
	Runs int `json:"runs"`
	// BuggyFailed and FixedFailed count the replays whose find counts
	// (Class.Counts) on each release.
	BuggyFailed int `json:"buggy_failed"`
	FixedFailed int `json:"fixed_failed"`
	// Dirs are the replays' run directories, the buggy release's first.
	Dirs []string `json:"dirs,omitempty"`
	// Err is why the replays stopped short ("" when they did not).
	Err string `json:"error,omitempty"`
}

// Separates reports whether the plan told the releases apart: it failed
// on the buggy release at least once and never on the fixed one.
func (c *Contrast) Separates() bool {
	return c != nil && c.Err == "" && c.BuggyFailed > 0 && c.FixedFailed == 0
}

// AddContrasts replays the buggy find of each row of rep that has none
// (Row.Contrast) on both of its releases, cfg.Contrast times each (a
// report merged from parts run without it), and counts the totals again.
// Only cfg's Contrast, Registry, Out and Replay are used.
func AddContrasts(ctx context.Context, cfg Config, rep *Report) error {
	if cfg.Contrast <= 0 {
		return fmt.Errorf("%w: Contrast %d: want a positive number of replays", ErrConfig, cfg.Contrast)
	}
	cfg.fill()
	for i := range rep.Rows {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if rep.Rows[i].Contrast == nil {
			cfg.replayFind(ctx, &rep.Rows[i])
		}
	}
	rep.total()
	return nil
}

// replayFind replays r's buggy find on both releases, cfg.Contrast times
// each, and records it in r.Contrast; nothing when there is no find to
// replay, or the fixed release was not run.
func (cfg *Config) replayFind(ctx context.Context, r *Row) {
	f := r.Buggy.Find
	if cfg.Contrast <= 0 || f == nil || r.Fixed.NotRun != "" {
		return
	}
	c := &Contrast{Runs: cfg.Contrast}
	r.Contrast = c
	d, err := replayDraw(f)
	if err != nil {
		c.Err = err.Error()
		return
	}
	failed := []*int{&c.BuggyFailed, &c.FixedFailed}
	for i, rel := range []Release{r.Buggy.Release, r.Fixed.Release} {
		trials, err := cfg.Replay(ctx, hunt.Config{Subject: rel.Subject, Registry: cfg.Registry, Out: cfg.Out}, d, cfg.Contrast)
		for _, t := range trials {
			c.Dirs = append(c.Dirs, t.Dir)
			if t.Find && classify(t).Counts() {
				*failed[i]++
			}
		}
		if err != nil {
			c.Err = fmt.Sprintf("replay on %s: %v", rel.Subject, err)
			return
		}
	}
}

// replayDraw is the draw f's reproduction command runs: `lockcheck run
// [--scenario NAME] --subject S --seed N --duration D [--plan FILE]`
// (hunt.Find.Command), with the plan read from FILE (none for a
// semaphore's or latch's run: hunt.PermitsPlan).
func replayDraw(f *Finding) (hunt.Draw, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var subj, sc, plan string
	var d hunt.Draw
	fs.StringVar(&subj, "subject", "", "")
	fs.StringVar(&sc, "scenario", "", "")
	fs.StringVar(&plan, "plan", "", "")
	fs.Int64Var(&d.Seed, "seed", 0, "")
	fs.DurationVar(&d.Duration, "duration", 0, "")
	args := strings.Fields(f.Command)
	if len(args) < 2 || args[0] != "lockcheck" || args[1] != "run" || strings.ContainsAny(f.Command, `'"\`) {
		return d, fmt.Errorf("cannot replay %q: not a plain `lockcheck run` command", f.Command)
	}
	if err := fs.Parse(args[2:]); err != nil {
		return d, fmt.Errorf("cannot replay %q: %v", f.Command, err)
	}
	switch {
	case d.Duration < hunt.MinRun && d.Duration != 0:
		return d, fmt.Errorf("cannot replay %q: duration %v below %v", f.Command, d.Duration, hunt.MinRun)
	case sc != "":
		s, err := scenario.Lookup(sc)
		if err != nil {
			return d, err
		}
		d.Scenario = &s
		if d.Duration == 0 {
			d.Duration = s.Duration
		}
		return d, nil
	case plan == "" && permits.Known(subj):
		d.Plan = hunt.PermitsPlan // a semaphore's run draws its plan from the seed
		return d, nil
	case plan == "":
		return d, errors.New("cannot replay " + f.Command + ": no --plan and no --scenario")
	}
	b, err := os.ReadFile(plan)
	if err != nil {
		return d, fmt.Errorf("cannot replay: %w", err)
	}
	if d.Plan, err = workloads.DecodePlan(b); err != nil {
		return d, fmt.Errorf("cannot replay: plan %s: %w", plan, err)
	}
	return d, nil
}
