//go:build browser

package results

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results/internal/synth"
)

// maxOpen is the must-show's bound on the time a timeline page takes to
// open: from the browser asked for it to its first drawing on screen.
const maxOpen = 2 * time.Second

// openRounds is how many times each page is opened, each in a new tab.
const openRounds = 3

// timelineCase is one page measured.
type timelineCase struct {
	name, path string
	// ops and locks are the history's; drawn is the ops on the page.
	ops, locks, drawnOps int
	size                 int64
	opens                []time.Duration // browser asked → first drawing on screen
	drawn                []int           // in-page: navigation start → first drawing (ms)
}

// TestTimelineOpensInBrowser (make timeline-browser) opens the timeline of a
// synthetic 60 s run of 3 locks, over 200k ops, in headless Chromium
// (installed when missing) openRounds times and fails when its median open
// time exceeds maxOpen. LOCKCHECK_TIMELINE_RUN=DIR also measures the run
// directory DIR's history.html, after checking that it holds every op of
// DIR's history. LOCKCHECK_TIMELINE_RECORD=1 writes the result table to
// timeline.md.
func TestTimelineOpensInBrowser(t *testing.T) {
	bin := chromium(t)
	cases := []*timelineCase{syntheticCase(t)}
	if dir := os.Getenv("LOCKCHECK_TIMELINE_RUN"); dir != "" {
		cases = append(cases, runCase(t, dir))
	}
	b := startBrowser(t, bin)
	for _, c := range cases {
		for range openRounds {
			open, drawn, err := b.open(c.path)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			c.opens, c.drawn = append(c.opens, open), append(c.drawn, drawn)
		}
		t.Logf("%s: %d ops on %d locks, %.1f MB: opened in %v (in-page %v ms)", c.name, c.ops, c.locks, float64(c.size)/(1<<20), c.opens, c.drawn)
		if m := median(c.opens); m > maxOpen {
			t.Errorf("%s: opens in %v (median of %d), want under %v", c.name, m, openRounds, maxOpen)
		}
	}
	if os.Getenv("LOCKCHECK_TIMELINE_RECORD") != "" {
		if err := os.WriteFile("timeline.md", []byte(timelineMarkdown(b.version, cases)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// syntheticCase writes the timeline of synth.Locks(1, 60 s, 3) with two
// findings marked.
func syntheticCase(t *testing.T) *timelineCase {
	h := synth.Locks(1, 60*time.Second, 3)
	if len(h.Ops) < 200_000 {
		t.Fatalf("the synthetic history has %d ops, want at least 200000", len(h.Ops))
	}
	n := len(h.Ops)
	rep := model.Report{Verdict: model.Invalid, Results: []model.Result{{Checker: model.CheckMutualExclusion, Verdict: model.Invalid,
		Examples: []model.Example{{Lock: "L1", Summary: "two holders", Ops: h.Ops[n/2 : n/2+2]}, {Lock: "L2", Summary: "two holders", Ops: h.Ops[n-3 : n-1]}}}}}
	path := filepath.Join(t.TempDir(), HTMLFile)
	writeTimelineTo(t, path, Timeline{Subject: "synthetic", Workload: "mixed", Seed: 1, History: h, Report: rep})
	c := newCase(t, "synthetic 60 s, 3 locks", path, h)
	if c.drawnOps != len(h.Ops) {
		t.Errorf("the page has %d ops, the history %d", c.drawnOps, len(h.Ops))
	}
	return c
}

// runCase is the run directory dir's own history.html, which must hold
// every op of the run's history, lock by lock.
func runCase(t *testing.T, dir string) *timelineCase {
	run, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, HTMLFile)
	d := readPageData(t, path)
	perLock := map[string]int{}
	for b := 0; b < len(d.Ops); b += opStride {
		perLock[d.Locks[d.Lanes[d.Ops[b]].Lock]]++
	}
	for _, o := range run.History.Ops {
		perLock[o.Lock]--
	}
	for lock, diff := range perLock {
		if diff != 0 {
			t.Errorf("%s: lock %s has %+d ops on the page against history.jsonl", path, lock, diff)
		}
	}
	name := "a run"
	if r := run.Result; r != nil {
		name = fmt.Sprintf("a run: `lockcheck run --subject %s --duration %s --seed %d` (workload %s)", r.Subject,
			FormatDuration(r.Stats.Span.Round(time.Second)), r.Seed, r.Workload)
	}
	return newCase(t, name, path, run.History)
}

// newCase describes the page at path, drawn from h.
func newCase(t *testing.T, name, path string, h *model.History) *timelineCase {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	d := readPageData(t, path)
	return &timelineCase{name: name, path: path, ops: len(h.Ops), locks: len(lockNames(h)), drawnOps: len(d.Ops) / opStride, size: fi.Size()}
}

// readPageData reads the data of the timeline page at path.
func readPageData(t *testing.T, path string) *timelineData {
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return pageData(t, page)
}

func writeTimelineTo(t *testing.T, path string, tl Timeline) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTimeline(f, tl); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// timelineMarkdown is timeline.md: the result table first.
func timelineMarkdown(browser string, cases []*timelineCase) string {
	var b strings.Builder
	b.WriteString("# The timeline in a browser\n\n")
	b.WriteString("| page | locks | ops in the history | ops on the page | size | opens in (median, max) | first drawing, in-page (median) |\n")
	b.WriteString("|:--|--:|--:|--:|--:|--:|--:|\n")
	for _, c := range cases {
		drawn := slices.Clone(c.drawn)
		slices.Sort(drawn)
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.1f MB | %s, %s | %d ms |\n", c.name, c.locks, c.ops, c.drawnOps, float64(c.size)/(1<<20),
			median(c.opens).Round(time.Millisecond), slices.Max(c.opens).Round(time.Millisecond), drawn[len(drawn)/2])
	}
	fmt.Fprintf(&b, "\nMeasured %s at commit %s with headless Chromium (%s, 1400×900 window), %d opens of each page.\n",
		time.Now().UTC().Format("2006-01-02"), gitHead(), browser, openRounds)
	b.WriteString(timelineMethod)
	return b.String()
}

const timelineMethod = `
"Opens in" runs from the moment the browser is asked for the page (a new
tab through its DevTools HTTP endpoint, /json/new) to the moment the page's
title changes, which the page does in the frame after its first drawing is
on screen (results/timeline/page.js); the endpoint is polled every 5 ms.
The in-page figure is performance.now() at that moment: from navigation
start, so it leaves out the browser's own work before it. Both include
reading the file, parsing the data and drawing the whole run. The ops on
the page are counted from its data; a run's, lock by lock, against its
history.jsonl (the test fails on any difference).

` + "```sh\nmake timeline-browser                 # the synthetic page; installs chromium when missing\nmake timeline-browser RUN=results/runs/mixed-reentrant/<time>-<n>-<seed>   # and a run's own page\n```\n" + `
The synthetic run is results/internal/synth's Locks(1, 60s, 3): three locks,
four processes each, blocking acquires, critical sections and releases,
TryLocks that give up, a Redis pause and a client stall. The must-show's
bound is 2 s; the test fails past it.
`
