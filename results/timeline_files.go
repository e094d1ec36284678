package results

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// writeLinearizability writes dir/LinearizabilityFile, porcupine's view of
// the segments of a.History that are not linearizable, when a.Report's
// linearizable checker says invalid; otherwise it removes a stale one (a
// run directory written again), so that a valid run has none.
func writeLinearizability(ctx context.Context, dir string, a RunArtifacts) error {
	path := filepath.Join(dir, LinearizabilityFile)
	if r, ok := a.Report.Result(model.CheckLinearizable); !ok || r.Verdict != model.Invalid {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	opts := a.Options
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	sel := a.HTML
	sel.OnlyIllegal = true
	var buf bytes.Buffer
	if err := model.WriteHTMLContext(ctx, &buf, a.History, opts, sel); err != nil {
		return err
	}
	return writeFile(path, buf.Bytes())
}

// writeTimelineFile writes dir/HTMLFile, the run's timeline
// (WriteTimeline), linking porcupine's view and summary.md.
func writeTimelineFile(dir string, a RunArtifacts, sum Summary) error {
	t := Timeline{
		Subject: a.Subject, Release: a.Release, Workload: a.Workload, Seed: a.Seed, Commit: a.Commit,
		History: a.History, Report: a.Report, Expected: sum.Expected,
		Links: []TimelineLink{{Name: SummaryFile, Href: SummaryFile, Title: "the verdicts and every checker's explanation"}},
	}
	if _, err := os.Stat(filepath.Join(dir, LinearizabilityFile)); err == nil {
		t.Links = append(t.Links, TimelineLink{Name: "the segments that are not linearizable (porcupine)", Href: LinearizabilityFile,
			Title: "porcupine's view of the lock segments the linearizable checker found illegal"})
	}
	var buf bytes.Buffer
	if err := WriteTimeline(&buf, t); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, HTMLFile), buf.Bytes())
}
