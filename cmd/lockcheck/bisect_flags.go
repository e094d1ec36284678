package main

import (
	"context"
	"flag"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/bisect"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// bisectFlags are the flags of `lockcheck bisect`.
type bisectFlags struct {
	run, subject, plan string
	seed               int64
	duration           time.Duration
	good, bad          string
	replays            int
	rate               bool
	budget             time.Duration
	out                string
	asJSON             bool
	bug, catalog       string // --bug: the catalog entry whose signatures a replay must show
	signatures         string // --signature: the patterns a replay must show one of

	given map[string]bool // the flags on the command line
	args  []string        // the command line, for the rerun command
}

// bisectFind is the find a bisection replays: the subject's bare name,
// the release it was found on ("": not known), its draw and the checkers'
// report of it (nil: a plan and a seed, with no verdict recorded).
type bisectFind struct {
	subject, release string
	draw             hunt.Draw
	report           *model.Report
	bug              *rediscover.Bug   // --bug: the replays must show its signatures
	patterns         []model.Signature // --signature: the replays must show one of them
}

const bisectExamples = `  lockcheck bisect --run results/findings/redisson-3.16.2-interrupted-trylock/replay-refusal --good 3.16.0   # bad: the run's release, 3.16.2
  lockcheck bisect --subject redisson --plan results/findings/redisson-3.16.2-interrupted-trylock/shrunk-plan.json --seed 1 --duration 5s --good 3.16.0 --bad 3.16.2 --replays 5
`

// parseBisectFlags parses and checks the command line of `lockcheck
// bisect`: every error is a usage error naming the flag.
func parseBisectFlags(e *env, args []string) (bisectFlags, error) {
	fs := newFlags(e, "bisect", "bisect (--run DIR | --subject S --plan FILE --seed N) --good X [--bad Y] [flags]", bisectExamples)
	f := bisectFlags{args: args, given: map[string]bool{}}
	fs.StringVar(&f.run, "run", "", "the find: the `DIR` of one run, of lockcheck run or one of a hunt's (config.json, result.json)")
	fs.StringVar(&f.subject, "subject", "", "the find's subject (with --plan, or alone for a semaphore or latch)")
	fs.StringVar(&f.plan, "plan", "", "the find's plan file (a hunt's plan.json)")
	fs.Int64Var(&f.seed, "seed", 0, "the find's seed (with --subject)")
	fs.DurationVar(&f.duration, "duration", hunt.DefaultRunDuration, "the find's run duration (with --subject)")
	fs.StringVar(&f.good, "good", "", "a release without the find, older than --bad; required")
	fs.StringVar(&f.bad, "bad", "", "a release with the find (default: the release --run ran, or --subject's @VERSION)")
	fs.IntVar(&f.replays, "replays", bisect.DefaultReplays, "replays of the find on each release visited, with the same seed")
	fs.BoolVar(&f.rate, "rate", false, "class releases by rate, for a regression that made a rare find common: a release has it when its replays show it more often than the good release's (Fisher, P < 0.05), which may show it now and then")
	fs.DurationVar(&f.budget, "budget", time.Hour, "bound on the whole bisection: registry, builds and replays")
	fs.StringVar(&f.out, "out", "results", "base directory of the replays: <out>/runs/replay/<time>-<seed>/")
	fs.BoolVar(&f.asJSON, "json", false, "print the result as JSON instead of a table")
	fs.StringVar(&f.bug, "bug", "", "a catalog `ID`: a replay shows the find only with one of that bug's signatures (default: one of the find's own)")
	fs.StringVar(&f.catalog, "catalog", "results/known-bugs.json", "the catalog of known bugs --bug names")
	fs.StringVar(&f.signatures, "signature", "", "comma-separated `PATTERNS` (CLASS/SHAPE/OPS/FAULT, as the catalog writes them): a replay shows the find only with a violation one of them fits, for one violation of a find that shows several (default: one of the find's own)")
	if err := parseFlags(fs, args, 0); err != nil {
		return f, err
	}
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
	return f, f.check()
}

// check rejects a command line that cannot run, before anything is read.
func (f *bisectFlags) check() error {
	switch {
	case f.run != "" && (f.given["subject"] || f.given["plan"] || f.given["seed"] || f.given["duration"]):
		return usagef("--run: give the find as a run directory or as --subject, --plan and --seed, not both")
	case f.run == "" && f.subject == "":
		return usagef("name the find: --run DIR, or --subject S --plan FILE --seed N")
	case f.run == "" && !f.given["seed"]:
		return usagef("--seed: give the find's seed")
	case f.bug != "" && f.signatures != "":
		return usagef("--signature: give the signatures a replay must show, or a catalog bug's (--bug), not both")
	case f.good == "":
		return usagef("--good: name a release without the find")
	case f.replays < 1:
		return usagef("--replays %d: want 1 or more", f.replays)
	case f.budget <= 0:
		return usagef("--budget %v: want a positive duration, e.g. 1h", f.budget)
	case f.duration < hunt.MinRun:
		return usagef("--duration %v: want at least %v", f.duration, hunt.MinRun)
	}
	return nil
}

// loadFind reads the find (--run, or --subject and --plan), fills --bad
// from it when not given, and checks the two ends.
func (f *bisectFlags) loadFind() (bisectFind, error) {
	load := f.planFind
	if f.run != "" {
		load = f.runFind
	}
	find, err := load()
	if err != nil {
		return find, err
	}
	if find.bug, err = f.loadBug(find.subject); err != nil {
		return find, err
	}
	if find.bug != nil && find.report != nil && !find.bug.Matches(find.report.Signatures()...) {
		return find, usagef("--run %s does not show %s: none of its violations has the bug's signature", f.run, f.bug)
	}
	if find.patterns, err = parsePatterns(f.signatures); err != nil {
		return find, err
	}
	if len(find.patterns) > 0 && find.report != nil && !patternMatcher(find.patterns)(hunt.Trial{Find: true, Report: *find.report}) {
		return find, usagef("--run %s does not show --signature %s: none of its violations fits", f.run, f.signatures)
	}
	if strings.Contains(find.subject, subject.MixSeparator) {
		return find, usagef("%s is a mix: bisect one library's releases", find.subject)
	}
	if f.bad == "" {
		if f.bad = find.release; f.bad == "" {
			return find, usagef("--bad: name a release with the find (the find does not say which release it ran)")
		}
	}
	if err := bisect.CheckEnds(f.good, f.bad); err != nil {
		return find, usagef("%v", err)
	}
	return find, nil
}

// planFind is the find of --subject, --plan, --seed and --duration: a
// semaphore's or latch's runs draw their plan from the seed.
func (f *bisectFlags) planFind() (bisectFind, error) {
	base, release := subject.SplitVersion(f.subject)
	find := bisectFind{subject: base, release: release, draw: hunt.Draw{Seed: f.seed, Duration: f.duration}}
	switch {
	case scenario.Known(base) && f.plan == "":
		find.draw.Plan = hunt.PermitsPlan
	case f.plan == "":
		return find, usagef("--plan: give the find's plan file")
	default:
		p, err := loadPlanFile(f.plan)
		if err != nil {
			return find, usageError{err}
		}
		find.draw.Plan = p
	}
	return find, nil
}

// runFind is the find of the run directory --run: its subject, release,
// seed, duration, plan or scenario (expect.json, or, in a hunt's scenario
// run, which writes none, the workload its config names), and its
// checkers' report (result.json), which must hold a find.
func (f *bisectFlags) runFind() (bisectFind, error) {
	run, err := results.LoadRun(f.run)
	if err != nil {
		return bisectFind{}, usagef("--run: %v", err)
	}
	var rec workloads.RunRecord
	if err := run.DecodeConfig(&rec); err != nil {
		return bisectFind{}, usagef("--run: %v", err)
	}
	if run.Result == nil {
		return bisectFind{}, usagef("--run %s has no %s: the run was never checked", f.run, results.ResultFile)
	}
	rep := run.Result.Report
	base, release := subject.SplitVersion(rec.Config.Subject)
	find := bisectFind{subject: base, release: rec.Subject.Release, report: &rep,
		draw: hunt.Draw{Seed: rec.Config.Seed, Duration: rec.Config.Duration}}
	if find.release == "" {
		find.release = release
	}
	switch {
	case run.Expect != nil:
		if j := run.Expect.Judge(rep); j.Met && f.bug == "" {
			return find, usagef("--run %s holds no find: its verdict %s is as the scenario expects", f.run, rep.Verdict)
		}
		sc, err := scenario.Lookup(run.Expect.Scenario)
		if err != nil {
			return find, usagef("--run: %v", err)
		}
		find.draw.Scenario = &sc
	case rep.Verdict != model.Invalid:
		return find, usagef("--run %s holds no find: its verdict is %s", f.run, rep.Verdict)
	case !scenario.Known(base) && isScenario(rec.Config.Workload):
		sc, _ := scenario.Lookup(rec.Config.Workload)
		find.draw.Scenario = &sc
	case scenario.Known(base):
		find.draw.Plan = hunt.PermitsPlan
	case rec.Config.Plan != nil:
		find.draw.Plan = *rec.Config.Plan
	case rec.Plan != nil:
		find.draw.Plan = *rec.Plan
	default:
		return find, usagef("--run %s records no plan", f.run)
	}
	return find, nil
}

// bisectConfig is the bisection of find the flags ask for: the releases
// from --good to --bad (the registry asked now, bounded by ctx), replayed
// with hunt.Replay, with the runs heard by runs.
func (f *bisectFlags) bisectConfig(ctx context.Context, find bisectFind, runs hunt.Observer, obs bisect.Observer) (bisect.Config, error) {
	vs, err := releasesOf(ctx, find.subject)
	if err != nil {
		return bisect.Config{}, err
	}
	rels, refused, err := bisect.Between(ctx, vs, f.good, f.bad)
	if err != nil {
		return bisect.Config{}, usagef("%s: %v", find.subject, err)
	}
	return bisect.Config{
		Releases: rels, Refused: refused, Replays: f.replays, Rate: f.rate, Observer: obs,
		Replayer: bisect.HuntReplayer{Subject: find.subject, Draw: find.draw, Out: f.out, Observer: runs},
		Match:    find.matcher(),
	}, nil
}

// loadBug reads --bug from --catalog: nil without --bug. The bug must be
// of the find's subject.
func (f *bisectFlags) loadBug(subjectName string) (*rediscover.Bug, error) {
	if f.bug == "" {
		return nil, nil
	}
	c, err := rediscover.LoadFile(f.catalog)
	if err != nil {
		return nil, usagef("--catalog: %v", err)
	}
	bugs, err := c.Select([]string{f.bug})
	if err != nil {
		return nil, usagef("--bug: %v", err)
	}
	if bugs[0].Subject != subjectName {
		return nil, usagef("--bug %s is a bug of %s, not of %s", f.bug, bugs[0].Subject, subjectName)
	}
	return &bugs[0], nil
}

// parsePatterns reads --signature: nil when it is empty.
func parsePatterns(list string) ([]model.Signature, error) {
	var out []model.Signature
	for _, field := range strings.Split(list, ",") {
		if field = strings.TrimSpace(field); field == "" {
			continue
		}
		p, err := model.ParseSignature(field)
		if err != nil {
			return nil, usagef("--signature %q: %v", field, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// isScenario reports whether name is a scenario's.
func isScenario(name string) bool {
	_, err := scenario.Lookup(name)
	return err == nil
}
