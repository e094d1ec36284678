package main

import (
	"fmt"

	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/matrix"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// cliObserver prints a matrix run's progress on stderr.
type cliObserver struct{ e *env }

func (o cliObserver) Started(s matrix.Start) {
	fmt.Fprintf(o.e.stderr, "lockcheck %s: %d scenarios × %d subjects × %d seeds%s into %s\n", s.Kind, s.Scenarios, s.Subjects, len(s.Seeds), shardNote(s.Shard), s.Dir)
}

// Finished prints one cell's status line.
func (o cliObserver) Finished(c results.MatrixCell) {
	status := "as expected"
	if c.Skip != "" {
		status = "skipped: " + c.Skip
	}
	if !c.OK {
		status = "NOT as expected: " + c.Why
	}
	fmt.Fprintf(o.e.stderr, "  %-24s %-10s seed %d: %-8s %s\n", c.Scenario, c.Subject, c.Seed, c.Verdict, status)
}

func (o cliObserver) Rerunning(c results.MatrixCell, k int) {
	fmt.Fprintf(o.e.stderr, "  rerun %d of %s: %s\n", k, c.Key(), c.Command)
}

func (o cliObserver) NotSaved(err error) {
	fmt.Fprintf(o.e.stderr, "lockcheck: %s: %v\n", results.MatrixFileName, err)
}

// shardSuffix names a shard's run directory ("-shard-2-of-4"), so shards
// started in the same second on one machine never share one.
func shardSuffix(s scenario.Shard) string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("-shard-%d-of-%d", s.I, s.N)
}

// shardNote is the start-up line's mention of the shard.
func shardNote(s scenario.Shard) string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf(", shard %s (the cells whose hash falls there)", s)
}
