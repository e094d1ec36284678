// Package results turns a checked run into the files a person reads: run
// statistics (counts, throughput, HdrHistogram latencies, per-process waits),
// a summary table for the terminal, Markdown and JSON, latency and throughput
// plots with fault windows shaded, the timeline page (WriteTimeline), and the
// run directory that holds them all:
//
//	<base>/runs/<scenario>/<YYYYMMDDTHHMMSS.mmm>-<n>-<seed>/   (NewRunDir)
//	    config.json      the run's configuration, verbatim
//	    expect.json      a scenario run's expectation, when it has one
//	    history.jsonl    the history, appended by the runner as the run goes
//	    result.json      a Summary: the checkers' report and the statistics
//	    summary.md       the summary table and every checker's explanation
//	    history.html     the timeline: every op of every lock, holds, fault
//	                     windows and findings; zoom and scroll (WriteTimeline)
//	    linearizability.html  porcupine's view of the segments that are not
//	                     linearizable, only when that checker says invalid
//	    latency.png      acquire latency over time
//	    throughput.png   grants per second over time
//
// NewRunDir creates a run directory exclusively: one directory belongs to
// one run. LoadRun reads a run directory back so it can be checked again;
// a re-check writes its artifacts to a directory of its own (WriteRun),
// never over the run's.
//
// results depends on model (and plotting, table and histogram libraries)
// only: it knows nothing of the runner, the locks or the faults.
package results
