package results

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// LinearizabilityFile is porcupine's view of the segments of a run's
// history that are not linearizable: written next to the timeline
// (HTMLFile) only when the linearizable checker says invalid, and linked
// from its header.
const LinearizabilityFile = "linearizability.html"

// Timeline is what the timeline page (WriteTimeline) shows of one run.
type Timeline struct {
	// Subject, Release, Workload and Seed name the run ("" and 0: not
	// known).
	Subject, Release, Workload string
	Seed                       int64
	// Commit is the lockcheck commit that made the run ("": unknown).
	Commit string
	// History is the run's history (required); Report the checkers'
	// verdict on it, whose examples are marked on the page.
	History *model.History
	Report  model.Report
	// Expected is the run's expectation judged (a scenario run's; nil:
	// none, every verdict is expected valid).
	Expected *Judgement
	// Links are other pages of the run, linked from the header.
	Links []TimelineLink
}

// TimelineLink is a link in the timeline's header.
type TimelineLink struct{ Name, Href, Title string }

//go:embed timeline/page.html.tmpl
var timelinePage string

//go:embed timeline/page.css
var timelineCSS string

//go:embed timeline/page.js
var timelineJS string

var timelineTemplate = template.Must(template.New("timeline").Parse(timelinePage))

// WriteTimeline writes lockcheck's timeline of one run to w: one
// self-contained HTML page (no network fetch, no library) whose header
// names the run (subject, release, workload, seed, commit, verdict, the
// expected verdict of a scenario run, each checker's verdict) and whose
// canvas draws every op of every lock, one row group per lock and one lane
// per process (processes that never overlap share one), holds as bars,
// fail and info ops apart from ok ones, fault windows as shaded bands
// labelled by name and process, and each checker's examples marked where
// their ops are, explained on hover or click. It zooms (wheel, buttons,
// keys) and scrolls (drag, scroll bars) and draws only what is in view, so
// nothing is capped: the ops travel as arrays of numbers (timelineData).
// Once its first drawing is on screen the page takes its title (it is
// "drawing…" until then) and sets data-drawn-ms on <html>.
func WriteTimeline(w io.Writer, t Timeline) error {
	if t.History == nil {
		return fmt.Errorf("results: WriteTimeline: no history")
	}
	data, err := json.Marshal(encodeTimeline(t.History, t.Report))
	if err != nil {
		return fmt.Errorf("results: encode timeline: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	page := struct {
		timelineHeader
		CSS  template.CSS
		JS   template.JS
		Data template.JS
	}{newTimelineHeader(t), template.CSS(timelineCSS), template.JS(timelineJS), template.JS(data)}
	if err := timelineTemplate.Execute(bw, page); err != nil {
		return err
	}
	return bw.Flush()
}

// timelineHeader is the header of the page, drawn by the template.
type timelineHeader struct {
	Title, Subject, Release, Workload, Seed, Commit, Verdict string
	// Expected is how the run went against its expectation ("": none);
	// ExpectedMet says whether it did.
	Expected    string
	ExpectedMet bool
	Checkers    []timelineChecker
	Facts       string
	Notes       []string
	Links       []TimelineLink
}

// timelineChecker is one checker's verdict with its explanation.
type timelineChecker struct{ Name, Verdict, Explanation string }

func newTimelineHeader(t Timeline) timelineHeader {
	hd := timelineHeader{
		Subject: orDash(t.Subject), Release: t.Release, Workload: orDash(t.Workload), Seed: "unknown",
		Commit: "unknown", Verdict: string(t.Report.Verdict), Links: t.Links,
	}
	if hd.Verdict == "" {
		hd.Verdict = string(model.Unknown)
	}
	if t.Seed != 0 {
		hd.Seed = fmt.Sprint(t.Seed)
	}
	if t.Commit != "" {
		hd.Commit = t.Commit
	}
	if j := t.Expected; j != nil {
		hd.Expected, hd.ExpectedMet = j.Phrase(t.Report), j.Met
	}
	for _, r := range t.Report.Results {
		hd.Checkers = append(hd.Checkers, timelineChecker{r.Checker, string(r.Verdict), r.Explanation})
	}
	hd.Title = fmt.Sprintf("%s seed %s: %s · lockcheck timeline", hd.Subject, hd.Seed, hd.Verdict)
	hd.Facts = timelineFacts(t.History)
	if why := t.Report.Unfinished; why != "" {
		hd.Notes = append(hd.Notes, "The history is a prefix of a run that did not finish ("+why+").")
	}
	if s := t.Report.Stopped; s != "" {
		hd.Notes = append(hd.Notes, "The check stopped before it decided ("+s+").")
	}
	return hd
}

// timelineFacts is one line of figures: ops, locks, span, fault windows.
func timelineFacts(h *model.History) string {
	span := historySpan(h)
	return fmt.Sprintf("%s on %s over %s; %s", plural(len(h.Ops), "op"), plural(len(lockNames(h)), "lock"),
		FormatDuration(time.Duration(span[1]-span[0])), plural(len(h.Faults), "fault window"))
}
