package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/lockcheck/lockcheck/workloads/bench"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// recordDir is the committed benchmark track record; only `bench --record`
// writes there.
const recordDir = "results/bench"

func benchCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "bench", "bench [--quick] [--record] [--subjects A,B,...] [--workers 1,8,32 | --threads 1,8,32] [--wire] [--duration D] [--rounds N] [--json] [--out DIR] [--redis ADDR]",
		"  lockcheck bench --quick            # under a minute, into results/runs/bench/<time>\n"+
			"  lockcheck bench                    # full table, a few minutes, into results/runs/bench/<time>\n"+
			"  lockcheck bench --record           # full table into the committed results/bench/ (make bench)\n"+
			"  lockcheck bench --subjects reentrant,redislock-tuned,go-reentrant --workers 1,8,32 --duration 2s --json\n"+
			"  lockcheck bench --subjects reentrant,redisson,fair,redisson-fair,fenced,redisson-fenced --threads 1,8,32\n"+
			"  lockcheck bench --wire --subjects reentrant,fair,redislock-tuned --workers 1,8,32 --out results/bench/wire   # the wire trace's cost\n")
	quick := fs.Bool("quick", false, "short windows and fewer rounds (under a minute); never recorded")
	record := fs.Bool("record", false, "write the full run into the committed track record "+recordDir+"/ (latest.* replaced, history.csv appended)")
	out := fs.String("out", "", "directory for latest.{md,csv,png,json} and history.csv (default: results/runs/bench/<time>, or "+recordDir+" with --record)")
	subjects := fs.String("subjects", "", "comma-separated subjects to measure, any of 'lockcheck subjects' that runs on one Redis (default: reentrant, fair, fenced, simple and the peers)")
	workers := fs.String("workers", "", "comma-separated worker counts (default: uncontended 1,8,32 and contended 2,8,32); contended cells take those >= 2")
	threads := fs.String("threads", "", "comma-separated thread counts: like --workers, but each cell's workers are threads of ONE client process (Go: goroutines on one client; drivers: owners of one process, each running the driver-side cycle); adds the Go port ÷ Redisson table")
	wire := fs.Bool("wire", false, "measure every subject twice in the same rounds: direct, and as 'NAME (wire)' with each client through a traced RESP proxy (faults.Wire, as a run's clients); adds the wire trace overhead table (wired ÷ direct per cell)")
	duration := fs.Duration("duration", 0, "measuring window of one cell per round (default 1s, 300ms with --quick)")
	rounds := fs.Int("rounds", 0, "interleaved rounds (default 5, 2 with --quick)")
	asJSON := fs.Bool("json", false, "print the tables as one JSON document instead of boxed tables")
	redisURL := fs.String("redis", "", "benchmark an existing Redis instead of a redis-server lockcheck starts (password: $LOCKCHECK_REDIS_PASSWORD or the URL)")
	fairPage := fs.String("fair-page", "", "also write the fair vs non-fair page (fair-vs-nonfair.md and its plots) into this directory; measure both sides of a pair: reentrant,fair and/or redisson,redisson-fair")
	from := fs.String("from", "", "with --fair-page: make the page from a run's latest.json instead of measuring")
	var engine engineFlags
	engine.add(fs)
	serverList := fs.String("servers", "", "comma-separated servers (e.g. redis-7.0,valkey-8.1): the same benchmark on each, then every cell's cycles/s side by side (servers.md)")
	if err := parseFlags(fs, args, 0); err != nil {
		return exitUsage, err
	}
	if err := engine.check(); err != nil {
		return exitUsage, err
	}
	if *from != "" {
		if *fairPage == "" {
			return exitUsage, usagef("--from takes --fair-page")
		}
		return fairPageCmd(e, *fairPage, *from)
	}
	if err := checkServersList(*serverList, *redisURL, *record, engine); err != nil {
		return exitUsage, err
	}
	if *record {
		if err := benchCustom(func(f string) bool { return flagSet(fs, f) }); err != nil {
			return exitUsage, err
		}
	}
	dir, err := benchDir(*out, *record, *quick, time.Now())
	if err != nil {
		return exitUsage, err
	}
	if *threads != "" && *workers != "" {
		return exitUsage, usagef("--threads and --workers: give one")
	}
	counts := *workers
	if *threads != "" {
		if _, _, err := benchCounts("threads", *threads); err != nil {
			return exitUsage, err
		}
		counts = *threads
	}
	cfg, subjs, err := benchConfig(*quick, *subjects, counts, *duration, *rounds)
	if err != nil {
		return exitUsage, err
	}
	cfg.Threads, cfg.Wire = *threads != "", *wire
	if *redisURL != "" {
		if _, err := parseRedisFlag(*redisURL); err != nil {
			return exitUsage, err
		}
	}
	if e.stopValidated("bench") {
		return exitValid, nil
	}
	if *serverList != "" {
		cfg.Progress = e.stderr
		return benchServers(ctx, e, *serverList, engine, cfg, subjs, dir)
	}
	ctx, closeEngine, err := engine.open(ctx, e.stderr, *redisURL != "")
	if err != nil {
		return exitUsage, err
	}
	defer closeEngine()
	cfg.Progress = e.stderr
	if *redisURL != "" {
		tgt, err := openTarget(ctx, *redisURL, "")
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
	if *asJSON {
		write = rep.WriteTablesJSON
	}
	if err := write(e.stdout); err != nil {
		return exitUsage, err
	}
	if err := rep.WriteDir(dir); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(e.stderr, "written to %s\n", dir)
	if *fairPage != "" {
		return writeFairPage(e, rep, *fairPage)
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
