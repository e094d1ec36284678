package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/rediscover"
)

// rediscoverFlags are the flags of `lockcheck rediscover`.
type rediscoverFlags struct {
	catalog     string
	bisections  string
	bugs        string
	budget      time.Duration
	runDuration time.Duration
	seed        int64
	runs        string
	out         string // the Markdown page ("": none)
	json        string // the JSON report ("": none; "-": stdout)
	standIns    string
	list        bool
	merge       string // JSON reports to merge instead of hunting
	contrast    int    // replays of a buggy find on each release

	selected []rediscover.Bug
	all      []rediscover.Bug // the whole catalog: the other bugs a release has
	standIn  map[string]string
}

const rediscoverExamples = `  lockcheck rediscover --list                                   # the catalog: id, library, buggy → fixed, producible
  lockcheck rediscover --budget 10m --out results/rediscovery.md --json results/rediscovery.json
  lockcheck rediscover --bugs redisson-3.43.0-watchdog-stops-after-failed-renewal --budget 3m
  lockcheck rediscover --merge a.json,b.json --out results/rediscovery-table.md   # parts run side by side (--bugs, same --seed and --budget), one page
  lockcheck rediscover --merge a.json --contrast 3 --json a2.json   # replay the finds of a report made without them on both releases
`

// parseRediscoverFlags parses and checks the command line of `lockcheck
// rediscover`: every error is a usage error naming the flag.
func parseRediscoverFlags(e *env, args []string) (rediscoverFlags, error) {
	fs := newFlags(e, "rediscover", "rediscover [--bugs ID,...] [flags]", rediscoverExamples)
	var f rediscoverFlags
	fs.StringVar(&f.catalog, "catalog", "results/known-bugs.json", "the catalog of known bugs")
	fs.StringVar(&f.bisections, "bisections", "results/bisect", "the `DIR` of bisections (lockcheck bisect --bug ID --json > DIR/ID.json) the table shows")
	fs.StringVar(&f.bugs, "bugs", "", "comma-separated bug IDs to hunt (default: every bug of the catalog)")
	fs.DurationVar(&f.budget, "budget", rediscover.DefaultBudget, "budget of each release's hunt, the buggy and the fixed alike")
	fs.DurationVar(&f.runDuration, "run-duration", hunt.DefaultRunDuration, "length of each plain run (at least 2s)")
	fs.Int64Var(&f.seed, "seed", 0, "first seed of every hunt (default: derived from the clock, printed)")
	fs.StringVar(&f.runs, "runs", "results", "base directory of the hunts' runs: <runs>/runs/hunt/<time>-<seed>/")
	fs.StringVar(&f.out, "out", "", "write the Markdown page there (e.g. results/rediscovery.md)")
	fs.StringVar(&f.json, "json", "", "write the JSON report there ('-': stdout)")
	fs.StringVar(&f.standIns, "stand-in", "", "NAME@VERSION=SUBJECT,...: run SUBJECT for a release the subject registry does not name")
	fs.BoolVar(&f.list, "list", false, "print the catalog and exit")
	fs.IntVar(&f.contrast, "contrast", rediscover.DefaultReplays, "replay each buggy find's shrunk draw this many times on both releases with the same seed, once both are hunted "+
		"(told apart: the bug's signature in most of the buggy release's replays, none of the fixed one's; 0: none); with --merge, for the rows that have no replays yet")
	fs.StringVar(&f.merge, "merge", "", "comma-separated JSON reports (--json) of parts run with the same seed and budget: write their rows as one report, judged again against --catalog, hunting nothing")
	if err := parseFlags(fs, args, 0); err != nil {
		return f, err
	}
	return f, f.check()
}

// check rejects a command line that cannot run, before anything starts,
// and loads the catalog.
func (f *rediscoverFlags) check() error {
	if err := checkBudget(f.budget, f.runDuration); err != nil {
		return err
	}
	if f.contrast < 0 {
		return usagef("--contrast %d: want 0 or more replays", f.contrast)
	}
	if f.json != "" && f.json == f.out {
		return usagef("--json and --out name the same file %s", f.out)
	}
	c, err := rediscover.LoadFile(f.catalog)
	if err != nil {
		return usagef("--catalog: %v", err)
	}
	if f.selected, err = c.Select(splitList(f.bugs)); err != nil {
		return usagef("--bugs: %v", err)
	}
	f.all = c.Bugs
	f.standIn, err = parseStandIns(f.standIns)
	return err
}

// parseStandIns parses NAME@VERSION=SUBJECT,...; each SUBJECT must be a
// subject of the registry.
func parseStandIns(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range splitList(s) {
		name, subj, ok := strings.Cut(pair, "=")
		if !ok || !strings.Contains(name, "@") || subj == "" {
			return nil, usagef("--stand-in %q: want NAME@VERSION=SUBJECT", pair)
		}
		if _, dup := out[name]; dup {
			return nil, usagef("--stand-in: %s given twice", name)
		}
		if _, err := catalog.Subjects.Lookup(subj); err != nil {
			return nil, usagef("--stand-in %s: %v", pair, err)
		}
		out[name] = subj
	}
	return out, nil
}

// config is the rediscovery the flags ask for.
func (f *rediscoverFlags) config(obs rediscover.Observer) rediscover.Config {
	seed := f.seed
	if seed == 0 {
		seed = time.Now().UnixNano() % 1_000_000
	}
	return rediscover.Config{
		Bugs: f.selected, Catalog: f.all, Budget: f.budget, RunDuration: f.runDuration, Seed: seed,
		Out: f.runs, StandIns: f.standIn, Observer: obs, Contrast: f.contrast,
	}
}

// describeBug is one line of --list.
func describeBug(b rediscover.Bug) string {
	can := "producible"
	if !b.Producible() {
		can = "missing: " + b.Missing
	}
	fixed := b.Fixed
	if b.Open() {
		fixed = "open (" + b.Upstream + ")"
	}
	return fmt.Sprintf("%s\t%s\t%s → %s\t%s\t%s\t%s", b.ID, b.Library, b.Release(b.Buggy), fixed, b.Property, b.Signature, can)
}
