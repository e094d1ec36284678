package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
)

// huntTally counts a hunt's draws (shrink runs apart).
type huntTally struct {
	runs, plain int
	scenarios   map[string]int // runs per scenario
	first, last int64          // seeds
	unknown     []string       // run directories that decided nothing
	degraded    []string       // run directories that did not go as asked
}

func (t *huntTally) add(r huntRun) {
	if t.runs == 0 {
		t.first = r.draw.seed
	}
	t.runs++
	t.last = r.draw.seed
	if r.draw.scenario == nil {
		t.plain++
	} else {
		if t.scenarios == nil {
			t.scenarios = map[string]int{}
		}
		t.scenarios[r.draw.scenario.Name]++
	}
	switch {
	case r.degraded != nil:
		t.degraded = append(t.degraded, r.dir)
	case r.report.Verdict == model.Unknown:
		t.unknown = append(t.unknown, r.dir)
	}
}

// reportTried writes what the hunt tried to w: runs, plain and scenario
// runs, seeds, and the runs that decided nothing.
// outcome heads the line: "no violation in", "a violation after".
func (h *hunter) reportTried(w io.Writer, outcome string) {
	t := h.tried
	var scs []string
	for name, n := range t.scenarios {
		scs = append(scs, fmt.Sprintf("%s ×%d", name, n))
	}
	sort.Strings(scs)
	elapsed := time.Since(h.deadline.Add(-h.flags.budget)).Round(time.Second)
	fmt.Fprintf(w, "lockcheck hunt: %s: %s %s over %v: %s of the hunt workload, %s",
		h.flags.subject, outcome, plural(t.runs, "run"), elapsed, plural(t.plain, "plain run"), plural(t.runs-t.plain, "scenario run"))
	if len(scs) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(scs, ", "))
	}
	if t.runs > 0 {
		fmt.Fprintf(w, "; seeds %d..%d", t.first, t.last)
	}
	fmt.Fprintln(w)
	for _, name := range slices.Sorted(maps.Keys(h.skipped)) {
		fmt.Fprintf(w, "scenario %s could not run here: %v\n", name, h.skipped[name])
	}
	if len(t.unknown) > 0 {
		fmt.Fprintf(w, "%s decided nothing (verdict unknown; not finds): %s\n", plural(len(t.unknown), "run"), strings.Join(t.unknown, ", "))
	}
	if len(t.degraded) > 0 {
		fmt.Fprintf(w, "%s did not go as asked (no verdict; not finds): %s\n", plural(len(t.degraded), "run"), strings.Join(t.degraded, ", "))
	}
	fmt.Fprintf(w, "runs in: %s\n", h.base)
}

// reportFind prints a find: what was found, how it was shrunk, the command
// that reruns the shrunk draw, its run directory and its plan. A plain
// run's plan is written to <hunt dir>/plan.json, which the command reads;
// done says shrinking tried every step (else time ran out first).
func (h *hunter) reportFind(found, best huntRun, kept []string, done bool) error {
	w := h.e.stdout
	fmt.Fprintf(w, "lockcheck hunt: FOUND in run %d: %s on %s, seed %d: %s\n",
		h.tried.runs, h.flags.subject, found.draw.describe(), found.draw.seed, found.why)
	cut := ""
	if !done {
		cut = "; shrinking ran out of time"
	}
	if len(kept) == 0 {
		fmt.Fprintf(w, "not shrunk (%s tried%s)\n", plural(h.shrinkRuns, "shrink run"), cut)
	} else {
		fmt.Fprintf(w, "shrunk in %s to %s: %s%s\n", plural(h.shrinkRuns, "run"), best.draw.describe(), strings.Join(kept, ", "), cut)
	}
	plan, planPath := best.draw.plan, ""
	if best.draw.scenario != nil {
		plan = best.draw.scenario.Plan
	} else {
		planPath = filepath.Join(h.base, "plan.json")
	}
	b, err := encodePlan(plan)
	if err != nil {
		return err
	}
	if planPath != "" {
		if err := os.WriteFile(planPath, b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "reproduce (exits 1 when the run fails again):\n  %s\n", shellJoin(h.reproduce(best.draw, planPath)))
	fmt.Fprintf(w, "run directory: %s\n", best.dir)
	if planPath != "" {
		fmt.Fprintf(w, "plan (%s):\n%s", planPath, b)
	} else {
		fmt.Fprintf(w, "plan (fixed by the scenario):\n%s", b)
	}
	h.reportTried(h.e.stderr, "a violation after")
	return nil
}

// reproduce is the command line that reruns d: `lockcheck run` with the
// plan file, or `lockcheck run --scenario`.
func (h *hunter) reproduce(d huntDraw, planPath string) []string {
	args := []string{"lockcheck", "run"}
	if d.scenario != nil {
		args = append(args, "--scenario", d.scenario.Name)
	}
	args = append(args, "--subject", h.flags.subject, "--seed", fmt.Sprint(d.seed), "--duration", d.duration.String())
	if planPath != "" {
		args = append(args, "--plan", planPath)
	}
	if h.flags.redis != "" {
		args = append(args, "--redis", printableRedis(h.flags.redis))
	}
	return args
}

// printableRedis is --redis as it may be printed: a URL that carries a
// password is redacted (the password then comes from
// $LOCKCHECK_REDIS_PASSWORD).
func printableRedis(raw string) string {
	a, err := faults.ParseRedisAddr(raw)
	if err != nil || !a.HasPassword() {
		return raw
	}
	return a.Redacted()
}

// shellJoin joins args into a command line a POSIX shell splits back into
// args (single quotes around any arg that needs them).
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@") == "" {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// plural is "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
