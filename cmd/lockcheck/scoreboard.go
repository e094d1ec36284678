package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/matrix"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

const scoreboardExamples = `  lockcheck scoreboard                                  # every library × every scenario × 5 seeds, then the page in results/scoreboard
  lockcheck scoreboard --subjects redsync,redislock --seed-base 2026112500
  lockcheck scoreboard --seed-base 2026112500 --shard 1/3 --out sb-1   # a shard: no page; merge with 'scoreboard render'
  lockcheck scoreboard --seed-base 2026112500 --subjects redisson,redisson-fair --out sb-java   # a subset: no page either
  lockcheck scoreboard render --page results/scoreboard sb-1 sb-2 sb-3
  lockcheck scoreboard recheck sb-1 sb-2 sb-3            # every recorded run checked again by this build: the verdicts that differ
  lockcheck scoreboard --servers redis-7.0,valkey-8.1 --seeds 2 --page out/servers   # the matrix once per server, rows per library × server

The subjects are every library people run that lockcheck has a subject for
(kinds external and peer), at its defaults: lockcheck's own lock behind a
driver and tuned variants are left out ('lockcheck subjects' lists them).
Seeds are base+1 .. base+N; the default base is the date (YYYYMMDD00), so
give every shard of one scoreboard the same --seed-base.
Each cell that breaks a property its lock claims is rerun --reruns times
from its 'lockcheck run' line before the page calls it broken.

Exit status: 0 the cells ran (broken libraries are findings, not failures);
2 bad input, a cell that could not run, or interrupted.
`

// scoreboardCmd is `lockcheck scoreboard`: a nightly over the libraries
// people run, with reruns of every finding, then the scoreboard page.
func scoreboardCmd(ctx context.Context, e *env, args []string) (int, error) {
	if len(args) > 0 && args[0] == "render" {
		return scoreboardRenderCmd(ctx, e, args[1:])
	}
	if len(args) > 0 && args[0] == "recheck" {
		return scoreboardRecheckCmd(ctx, e, args[1:])
	}
	fs := newFlags(e, "scoreboard", "scoreboard [flags] | scoreboard render [--page DIR] DIR… | scoreboard recheck DIR…", scoreboardExamples)
	f := matrixFlags{nseeds: 5, reruns: 1}
	f.add(fs, "comma-separated subjects (default: every library, see above)")
	base := defaultSeedBase(time.Now())
	fs.Int64Var(&f.seedBase, "seed-base", base, "seeds are base+1 .. base+N; the default is today's date as YYYYMMDD00")
	page := fs.String("page", defaultPage, "directory of the scoreboard page, written after a whole run (no --shard, --subjects or --scenarios) or when given")
	cfg, names, done, err := f.prepare(e, fs, args, matrix.Scoreboard, scoredSubjects)
	if err != nil || done {
		return prologueExit(err), err
	}
	fmt.Fprintf(e.stderr, "lockcheck scoreboard: seed base %d (seeds %d..%d)\n", cfg.SeedBase, cfg.Seeds[0], cfg.Seeds[len(cfg.Seeds)-1])
	code, err := executeServers(ctx, e, &f, cfg, names)
	if err != nil || interrupted(ctx) {
		return code, err
	}
	if !flagSet(fs, "page") && (cfg.Shard.N > 0 || f.subjects != "" || f.scenarios != "") {
		fmt.Fprintf(e.stdout, "part of a scoreboard: render it with the other parts: lockcheck scoreboard render --page %s %s …\n", *page, cfg.Dir)
		return scoreboardCode(code), nil
	}
	if err := renderScoreboard(e, *page, []string{cfg.Dir}); err != nil {
		return exitUsage, err
	}
	return scoreboardCode(code), nil
}

// defaultPage is where the committed scoreboard lives.
const defaultPage = "results/scoreboard"

// scoreboardCode maps a matrix's exit status to the scoreboard's: a cell
// not as expected is a finding, not a failure of the command.
func scoreboardCode(code int) int {
	if code == exitInvalid {
		return exitValid
	}
	return code
}

// defaultSeedBase is the date as YYYYMMDD00: fresh seeds every day, the
// same all day.
func defaultSeedBase(now time.Time) int64 {
	y, mo, d := now.UTC().Date()
	return int64(y*10000+int(mo)*100+d) * 100
}

// scoredSubjects resolves --subjects, "" meaning every scored subject, the
// releases the scoreboard keeps beside the pinned ones
// (catalog.ScoredReleases, fetched and built on first use) and Redisson's
// semaphores and latch (permits.Libraries).
func scoredSubjects(list string) ([]subject.Subject, error) {
	if list != "" {
		return lookupSubjects(list)
	}
	var out []subject.Subject
	for _, s := range catalog.Subjects.All() {
		if s.Scored() {
			out = append(out, s)
		}
	}
	more, err := lookupSubjects(strings.Join(catalog.ScoredReleases, ","))
	if err != nil {
		return nil, err
	}
	out = append(out, more...)
	out = append(out, permits.Libraries()...)
	if len(out) == 0 {
		return nil, usagef("no library subject is registered")
	}
	return out, nil
}

const scoreboardRenderExamples = `  lockcheck scoreboard render results/runs/scoreboard          # every matrix.json under it
  lockcheck scoreboard render --page results/scoreboard sb-1 sb-2 sb-3
`

// scoreboardRenderCmd is `lockcheck scoreboard render DIR…`: the page from
// the matrix.json files of scoreboard runs or their shards.
func scoreboardRenderCmd(_ context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "scoreboard render", "scoreboard render [--page DIR] DIR|matrix.json…", scoreboardRenderExamples)
	page := fs.String("page", defaultPage, "directory of the scoreboard page")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage, err
	}
	if len(dirs) == 0 {
		return exitUsage, usagef("want at least one scoreboard output directory (or matrix.json)")
	}
	if e.stopValidated("scoreboard render") {
		return exitValid, nil
	}
	if err := renderScoreboard(e, *page, dirs); err != nil {
		return exitUsage, err
	}
	return exitValid, nil
}

// renderScoreboard publishes the page from the matrices under dirs.
func renderScoreboard(e *env, page string, dirs []string) error {
	files, err := matrix.Publish(page, dirs, time.Now(), results.Rechecks{Allowances: runAllowances(e), NeedsWire: runNeedsWire(e)})
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintf(e.stdout, "scoreboard: %s\n", f)
	}
	if len(files) == 0 {
		return fmt.Errorf("nothing written from %s", strings.Join(dirs, " "))
	}
	return nil
}
