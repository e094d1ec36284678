package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/lockcheck/lockcheck/workloads/bench"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// recordDir is the committed benchmark track record; only `bench --record`
// writes there.
const recordDir = "results/bench"

// benchFlags are the flags of `lockcheck bench`.
type benchFlags struct {
	quick      *bool
	record     *bool
	out        *string
	subjects   *string
	workers    *string
	threads    *string
	wire       *bool
	duration   *time.Duration
	rounds     *int
	asJSON     *bool
	redisURL   *string
	fairPage   *string
	from       *string
	serverList *string
	engine     engineFlags
}

// add defines b's flags on fs.
func (b *benchFlags) add(fs *flag.FlagSet) {
	b.quick = fs.Bool("quick", false, "short windows and fewer rounds (under a minute); never recorded")
	b.record = fs.Bool("record", false, "write the full run into the committed track record "+recordDir+"/ (latest.* replaced, history.csv appended)")
	b.out = fs.String("out", "", "directory for latest.{md,csv,png,json} and history.csv (default: results/runs/bench/<time>, or "+recordDir+" with --record)")
	b.subjects = fs.String("subjects", "", "comma-separated subjects to measure, any of 'lockcheck subjects' that runs on one Redis (default: reentrant, fair, fenced, simple and the peers)")
	b.workers = fs.String("workers", "", "comma-separated worker counts (default: uncontended 1,8,32 and contended 2,8,32); contended cells take those >= 2")
	b.threads = fs.String("threads", "", "comma-separated thread counts: like --workers, but each cell's workers are threads of ONE client process (Go: goroutines on one client; drivers: owners of one process, each running the driver-side cycle); adds the Go port ÷ Redisson table")
	b.wire = fs.Bool("wire", false, "measure every subject twice in the same rounds: direct, and as 'NAME (wire)' with each client through a traced RESP proxy (faults.Wire, as a run's clients); adds the wire trace overhead table (wired ÷ direct per cell)")
	b.duration = fs.Duration("duration", 0, "measuring window of one cell per round (default 1s, 300ms with --quick)")
	b.rounds = fs.Int("rounds", 0, "interleaved rounds (default 5, 2 with --quick)")
	b.asJSON = fs.Bool("json", false, "print the tables as one JSON document instead of boxed tables")
	b.redisURL = fs.String("redis", "", "benchmark an existing Redis instead of a redis-server lockcheck starts (password: $LOCKCHECK_REDIS_PASSWORD or the URL)")
	b.fairPage = fs.String("fair-page", "", "also write the fair vs non-fair page (fair-vs-nonfair.md and its plots) into this directory; measure both sides of a pair: reentrant,fair and/or redisson,redisson-fair")
	b.from = fs.String("from", "", "with --fair-page: make the page from a run's latest.json instead of measuring")
	b.engine.add(fs)
	b.serverList = fs.String("servers", "", "comma-separated servers (e.g. redis-7.0,valkey-8.1): the same benchmark on each, then every cell's cycles/s side by side (servers.md)")
}

func benchCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "bench", "bench [--quick] [--record] [--subjects A,B,...] [--workers 1,8,32 | --threads 1,8,32] [--wire] [--duration D] [--rounds N] [--json] [--out DIR] [--redis ADDR]",
		"  lockcheck bench --quick            # under a minute, into results/runs/bench/<time>\n"+
			"  lockcheck bench                    # full table, a few minutes, into results/runs/bench/<time>\n"+
			"  lockcheck bench --record           # full table into the committed results/bench/ (make bench)\n"+
			"  lockcheck bench --subjects reentrant,redislock-tuned,go-reentrant --workers 1,8,32 --duration 2s --json\n"+
			"  lockcheck bench --subjects reentrant,redisson,fair,redisson-fair,fenced,redisson-fenced --threads 1,8,32\n"+
			"  lockcheck bench --wire --subjects reentrant,fair,redislock-tuned --workers 1,8,32 --out results/bench/wire   # the wire trace's cost\n")
	var b benchFlags
	b.add(fs)
	if err := parseFlags(fs, args, 0); err != nil {
		return exitUsage, err
	}
	if err := b.engine.check(); err != nil {
		return exitUsage, err
	}
	if *b.from != "" {
		if *b.fairPage == "" {
			return exitUsage, usagef("--from takes --fair-page")
		}
		return fairPageCmd(e, *b.fairPage, *b.from)
	}
	cfg, subjs, dir, err := b.config(fs)
	if err != nil {
		return exitUsage, err
	}
	if e.stopValidated("bench") {
		return exitValid, nil
	}
	if *b.serverList != "" {
		cfg.Progress = e.stderr
		return benchServers(ctx, e, *b.serverList, b.engine, cfg, subjs, dir)
	}
	return runBench(ctx, e, &b, cfg, subjs, dir)
}

// config checks b's flags (fs: which were given) and returns the
// benchmark's configuration, its subjects and its output directory.
func (b *benchFlags) config(fs *flag.FlagSet) (bench.Config, []subject.Subject, string, error) {
	if err := checkServersList(*b.serverList, *b.redisURL, *b.record, b.engine); err != nil {
		return bench.Config{}, nil, "", err
	}
	if *b.record {
		if err := benchCustom(func(f string) bool { return flagSet(fs, f) }); err != nil {
			return bench.Config{}, nil, "", err
		}
	}
	dir, err := benchDir(*b.out, *b.record, *b.quick, time.Now())
	if err != nil {
		return bench.Config{}, nil, "", err
	}
	if *b.threads != "" && *b.workers != "" {
		return bench.Config{}, nil, "", usagef("--threads and --workers: give one")
	}
	counts := *b.workers
	if *b.threads != "" {
		if _, _, err := benchCounts("threads", *b.threads); err != nil {
			return bench.Config{}, nil, "", err
		}
		counts = *b.threads
	}
	cfg, subjs, err := benchConfig(*b.quick, *b.subjects, counts, *b.duration, *b.rounds)
	if err != nil {
		return bench.Config{}, nil, "", err
	}
	cfg.Threads, cfg.Wire = *b.threads != "", *b.wire
	if *b.redisURL != "" {
		if _, err := parseRedisFlag(*b.redisURL); err != nil {
			return bench.Config{}, nil, "", err
		}
	}
	return cfg, subjs, dir, nil
}

// runBench measures subjs with cfg on b's Redis (one lockcheck starts,
// or --redis), prints the tables, writes them into dir (and the fair
// page when asked) and returns the exit status.
func runBench(ctx context.Context, e *env, b *benchFlags, cfg bench.Config, subjs []subject.Subject, dir string) (int, error) {
	ctx, closeEngine, err := b.engine.open(ctx, e.stderr, *b.redisURL != "")
	if err != nil {
		return exitUsage, err
	}
	defer closeEngine()
	cfg.Progress = e.stderr
	if *b.redisURL != "" {
		tgt, err := openTarget(ctx, *b.redisURL, "")
		if err != nil {
			return exitUsage, err
		}
		cfg.Redis = tgt.Options()
	}
	rep, err := bench.Run(ctx, cfg, subjs)
	if err != nil {
		if interrupted(ctx) {
			reportInterrupted(e, "bench", nil, nil)
			return exitInterrupted, nil
		}
		return exitUsage, err
	}
	write := rep.WriteTables
	if *b.asJSON {
		write = rep.WriteTablesJSON
	}
	if err := write(e.stdout); err != nil {
		return exitUsage, err
	}
	if err := rep.WriteDir(dir); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(e.stderr, "written to %s\n", dir)
	if *b.fairPage != "" {
		return writeFairPage(e, rep, *b.fairPage)
	}
	return exitValid, nil
}

// benchConfig builds the engine's configuration and subjects from the flags
// (zero values keep the mode's defaults).
func benchConfig(quick bool, subjects, workers string, d time.Duration, rounds int) (bench.Config, []subject.Subject, error) {
	cfg := bench.Config{Quick: quick, Duration: d, Rounds: rounds}
	switch {
	case d < 0:
		return cfg, nil, usagef("--duration %v: want > 0", d)
	case rounds < 0:
		return cfg, nil, usagef("--rounds %d: want > 0", rounds)
	}
	if workers != "" {
		u, c, err := benchWorkers(workers)
		if err != nil {
			return cfg, nil, err
		}
		cfg.Uncontended, cfg.Contended = u, c
	}
	subjs, err := benchSubjects(subjects)
	return cfg, subjs, err
}

// benchDir is where a benchmark run writes: --out if given, else the
// committed record with --record, else a run directory of its own. The
// committed record takes only full runs asked for with --record, so that a
// quick run or a user's run never replaces the track record.
func benchDir(out string, record, quick bool, now time.Time) (string, error) {
	if record && quick {
		return "", usagef("--record takes a full run: drop --quick (quick runs go to a run directory)")
	}
	switch {
	case out != "" && !record && samePath(out, recordDir):
		return "", usagef("--out %s is the committed track record: add --record (a full run) to replace it", out)
	case out != "":
		return out, nil
	case record:
		return recordDir, nil
	}
	return filepath.Join("results", "runs", "bench", now.UTC().Format("20060102T150405")), nil
}

func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
