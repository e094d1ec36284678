package rediscover

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/stats"
)

// ReplayFunc replays one draw n times on a subject: hunt.Replay, or a fake
// in tests.
type ReplayFunc func(ctx context.Context, cfg hunt.Config, d hunt.Draw, n int) ([]hunt.Trial, error)

// DefaultReplays is how many times a find is replayed on each release
// (Config.Contrast) by the command line unless told otherwise.
const DefaultReplays = 5

// Contrast is the buggy release's find, its shrunk draw (the same seed,
// duration and plan, or the same scenario), replayed on both releases: the
// same plan and seed, where the two hunts may have drawn different ones.
// A plan that fails with the bug's signature on the buggy release in most
// replays and on the fixed one in none tells them apart (TellsApart),
// whatever other bugs the fixed release still has. A replay counts on
// either side only when a bug both releases share cannot explain it as
// well (sharedAt, claims), unless the find itself is one such a bug
// explains too (Finding.SharedWith): then a replay with the bug's
// signature counts on both sides, and only a fixed release clean of it,
// where the buggy one mostly shows it, tells them apart.
type Contrast struct {
	// Runs is the replays made on each release; Seed the seed of each.
	Runs int   `json:"runs"`
	Seed int64 `json:"seed,omitempty"`
	// BuggyHits and FixedHits count the replays whose find counts
	// (Class.Counts) and has the bug's signature, which no bug the two
	// releases share has too (claims), on each release.
	BuggyHits int `json:"buggy_hits"`
	FixedHits int `json:"fixed_hits"`
	// BuggyFailed and FixedFailed count the replays whose find counts,
	// whatever its signature.
	BuggyFailed int `json:"buggy_failed"`
	FixedFailed int `json:"fixed_failed"`
	// P is the one-sided p-value of Fisher's exact test that the buggy
	// release hits no more often than the fixed one (stats.FisherOneSided).
	P float64 `json:"p"`
	// Found are the signatures of each replay whose find counts, on each
	// release (the buggy one's first), so that the hits can be counted
	// again when the bug's signatures change (Rejudge).
	Found [2][][]model.Signature `json:"found,omitempty"`
	// Dirs are the replays' run directories, the buggy release's first.
	Dirs []string `json:"dirs,omitempty"`
	// Err is why the replays stopped short ("" when they did not).
	Err string `json:"error,omitempty"`
	// Duration is the replays' duration when it is not the find's own
	// (0): the find's draw hit in too few of the buggy release's replays
	// (Short), so the counts above are of the same draw made longer
	// (lengthened), on both releases.
	Duration time.Duration `json:"duration_ns,omitempty"`
	Short    *Short        `json:"short,omitempty"`
}

// Short is the buggy release's replays of a find at its own duration, set
// aside when too few of them hit and the contrast was made longer.
type Short struct {
	Duration time.Duration       `json:"duration_ns"`
	Hits     int                 `json:"hits"`
	Failed   int                 `json:"failed"`
	Found    [][]model.Signature `json:"found,omitempty"`
	Dirs     []string            `json:"dirs,omitempty"`
}

// LongestReplay bounds a lengthened replay: a find's draw replayed
// lengthenBy times as long, or this long if that is shorter (and not
// lengthened at all when the draw is already this long).
const (
	LongestReplay = time.Minute
	lengthenBy    = 4
)

// lengthened is d made lengthenBy times longer, at most LongestReplay; ok
// is false when d is that long already. A longer run of the same plan (or
// scenario) and seed makes the same kinds of ops and faults for longer: a
// bug it shows in one run of several it shows in most longer ones, and a
// fixed release that shows it in none of those is cleaner for it.
func lengthened(d hunt.Draw) (hunt.Draw, bool) {
	long := min(lengthenBy*d.Duration, LongestReplay)
	if long <= d.Duration {
		return d, false
	}
	d.Duration = long
	return d, true
}

// setAside moves c's buggy-side replays, made at the find's own duration
// own, to c.Short, and counts that side again from nothing.
func (c *Contrast) setAside(own time.Duration) {
	c.Short = &Short{Duration: own, Hits: c.BuggyHits, Failed: c.BuggyFailed, Found: c.Found[0], Dirs: c.Dirs}
	c.BuggyHits, c.BuggyFailed, c.Found[0], c.Dirs = 0, 0, nil, nil
}

// TellsApart reports whether the plan told the releases apart: all its
// replays made, the bug's signature in most of the buggy release's and in
// none of the fixed one's.
func (c *Contrast) TellsApart() bool {
	return c != nil && c.Err == "" && c.Runs > 0 && 2*c.BuggyHits > c.Runs && c.FixedHits == 0
}

// count adds t, a replay on the buggy (i 0) or the fixed release (i 1),
// to c, the replays of a find that want (that side's) looks for.
func (c *Contrast) count(i int, t hunt.Trial, want sought) {
	if !t.Find || !classify(t).Counts() {
		return
	}
	sigs := t.Report.Signatures()
	c.Found[i] = append(c.Found[i], sigs)
	hit := want.wants(sigs)
	if i == 0 {
		c.BuggyFailed++
		c.BuggyHits += b2i(hit)
	} else {
		c.FixedFailed++
		c.FixedHits += b2i(hit)
	}
}

// recount counts c's hits again from the replays' signatures, for what
// each side's hunt looks for (the buggy release's first), and reports
// whether it could: a contrast recorded without them (Found) keeps its
// counts.
func (c *Contrast) recount(wants [2]sought) bool {
	if len(c.Found[0]) != c.BuggyFailed || len(c.Found[1]) != c.FixedFailed {
		return false
	}
	c.BuggyHits, c.FixedHits = hitsIn(c.Found[0], wants[0]), hitsIn(c.Found[1], wants[1])
	if sh := c.Short; sh != nil && len(sh.Found) == sh.Failed {
		sh.Hits = hitsIn(sh.Found, wants[0])
	}
	c.fisher()
	return true
}

// replayed is what the replays of f count on each release (wants, the
// buggy release's first): the bug's signature, and, for a find that
// shares it with a bug both releases have (Finding.SharedWith), that
// bug's as well, on both.
func replayed(f *Finding, wants [2]sought) [2]sought {
	if f != nil && f.SharedWith != "" {
		return [2]sought{wants[0].lenient(), wants[1].lenient()}
	}
	return wants
}

// hitsIn counts the replays, of signatures found, that w looks for.
func hitsIn(found [][]model.Signature, w sought) int {
	n := 0
	for _, sigs := range found {
		n += b2i(w.wants(sigs))
	}
	return n
}

// fisher sets P from the counts.
func (c *Contrast) fisher() {
	c.P = stats.FisherOneSided(c.BuggyHits, c.Runs-c.BuggyHits, c.FixedHits, c.Runs-c.FixedHits)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// AddContrasts replays the buggy find of each row of rep that has none
// (Row.Contrast) on both of its releases, cfg.Contrast times each (a
// report merged from parts run without it), and counts the totals again.
// Only cfg's Contrast, Registry, Out, Replay and catalog are used.
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
			rep.Rows[i].judge() // a shared find's status rests on its replays
		}
	}
	rep.total()
	return nil
}

// replayFind replays r's buggy find on both releases, cfg.Contrast times
// each, and records it in r.Contrast; nothing when there is no find to
// replay, or the fixed release was not run. When too few of the buggy
// release's replays hit, the find is replayed there again for longer
// (lengthened), and both releases are counted at that length
// (Contrast.Short keeps the first replays' counts).
func (cfg *Config) replayFind(ctx context.Context, r *Row) {
	f := r.Buggy.Find
	if cfg.Contrast <= 0 || f == nil || r.Fixed.NotRun != "" {
		return
	}
	c := &Contrast{Runs: cfg.Contrast, P: 1}
	r.Contrast = c
	d, err := replayDraw(f)
	if err != nil {
		c.Err = err.Error()
		return
	}
	c.Seed = d.Seed
	all := cfg.catalog()
	wants := replayed(f, [2]sought{soughtAt(all, r.Bug, SideBuggy), soughtAt(all, r.Bug, SideFixed)})
	buggy, fixed := wants[0], wants[1]
	if err := cfg.replayOn(ctx, c, 0, r.Buggy.Release, d, buggy); err != nil {
		return
	}
	if long, ok := lengthened(d); ok && 2*c.BuggyHits <= c.Runs {
		c.setAside(d.Duration)
		c.Duration, d = long.Duration, long
		if err := cfg.replayOn(ctx, c, 0, r.Buggy.Release, d, buggy); err != nil {
			return
		}
	}
	if cfg.replayOn(ctx, c, 1, r.Fixed.Release, d, fixed) == nil {
		c.fisher()
	}
}

// replayOn replays d cfg.Contrast times on rel and counts each replay in c
// on side i (0: the buggy release); an error is also recorded in c.Err.
func (cfg *Config) replayOn(ctx context.Context, c *Contrast, i int, rel Release, d hunt.Draw, want sought) error {
	trials, err := cfg.Replay(ctx, hunt.Config{Subject: rel.Subject, Registry: cfg.Registry, Out: cfg.Out}, d, cfg.Contrast)
	for _, t := range trials {
		c.Dirs = append(c.Dirs, t.Dir)
		c.count(i, t, want)
	}
	if err != nil {
		c.Err = fmt.Sprintf("replay on %s: %v", rel.Subject, err)
	}
	return err
}

// replayDraw is the draw f's reproduction command runs: `lockcheck run
// [--scenario NAME] --subject S --seed N --duration D [--plan FILE]
// [--wire | --redis R]` (hunt.Command), with the plan read from FILE (none
// for a semaphore's or latch's run: hunt.PermitsPlan).
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
	// Where the run went: a replay runs on the rediscovery's own server,
	// through its proxies, as the hunt that found it did.
	fs.Bool("wire", false, "")
	fs.String("redis", "", "")
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
	case plan == "" && scenario.Known(subj):
		d.Plan = hunt.PermitsPlan // the kind's runner draws its plan from the seed
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
