package matrix

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

// ErrUnlinked marks a page Publish wrote whose links do not all resolve
// inside the page's directory: a bug of the publish step.
var ErrUnlinked = errors.New("matrix: the published page links what it did not keep")

// keptFiles are the files of a run directory a page keeps: enough to
// re-check it (`lockcheck check DIR` draws the timeline and plots again).
// Its summary.md is written again to link only these. They are kept
// gzipped (results.Gz: a ninth of their size; LoadRun reads either): a
// page keeps hundreds of runs.
var keptFiles = []keptFile{{results.ConfigFile, true}, {results.HistoryFile, true}, {results.ResultFile, true}}

// keptFile is a file of a run directory a page keeps, gzipped or not.
type keptFile struct {
	name     string
	compress bool
}

// Publish writes the scoreboard page into dir from the matrix.json files
// under parts (scoreboard runs, their shards or parts, as written by Run;
// a cell run again in a later part replaces the older one). It is the one
// step that makes a page stand on its own:
//   - it copies the run of every finding and of its reruns to
//     dir/runs/<scenario>/<run> (config, history and result, gzipped;
//     summary.md written again to link only those), and links those
//     copies; a difference between servers links the runs of its sides
//     that are findings, and names the others by their command;
//   - it links no other run (a run not found is not linked either);
//   - it names each part by its run's name, never by a path of this
//     machine.
//
// A holds* cell recorded before runs recorded the fault-allowance checker's
// allowances gets them from rc, which checks its history again; a kept run
// keeps its wire trace when rc says its verdicts need it (rc's nil fields:
// shown as recorded, no trace kept).
//
// It checks every link of the pages it wrote resolves inside dir (else
// ErrUnlinked) and returns the paths written.
func Publish(dir string, parts []string, now time.Time, rc results.Rechecks) ([]string, error) {
	paths, err := results.FindMatrices(parts)
	if err != nil {
		return nil, err
	}
	page, err := results.LoadScoreboard(dir, paths, partName, now, rc.Allowances)
	if err != nil {
		return nil, err
	}
	kept, err := keepFindings(dir, page.Findings, rc.NeedsWire)
	if err != nil {
		return nil, err
	}
	relink(&page, kept)
	files, err := results.WriteScoreboardPage(dir, page)
	if err != nil {
		return files, err
	}
	return files, checkPage(dir, files)
}

// partName names a part by its run directory's name (the time it started
// and its shard), the same on every machine.
func partName(matrixPath string) string {
	dir := filepath.Dir(matrixPath)
	name := filepath.Base(dir)
	if name != "" && (name[0] < '0' || name[0] > '9') { // <time>/<server> of --servers
		name = filepath.Base(filepath.Dir(dir)) + "/" + name
	}
	return "scoreboard run " + name
}

// keepFindings copies the run of every finding and of its reruns under
// dir/runs and returns the copies by the run's original link (relative to
// dir). A run that is not found here is left out.
func keepFindings(dir string, findings []results.Finding, needsWire func(string) (bool, error)) (map[string]string, error) {
	kept := map[string]string{}
	for _, f := range findings {
		for _, r := range f.Runs {
			for _, rel := range append([]string{r.Dir}, r.Reruns...) {
				if _, done := kept[rel]; done || rel == "" {
					continue
				}
				to, err := keepRun(dir, f.Server, f.Scenario, rel, needsWire)
				switch {
				case err != nil:
					return nil, err
				case to != "":
					kept[rel] = to
				}
			}
		}
	}
	return kept, nil
}

// keepRun copies the run directory rel (relative to dir) into
// dir/runs/<scenario>/ (dir/runs/<server>/<scenario>/ on a page of
// several servers, whose runs share their names) and writes its summary
// again; it returns the copy's path relative to dir, "" when rel is not
// found.
func keepRun(dir, server, scenario, rel string, needsWire func(string) (bool, error)) (string, error) {
	src := filepath.Join(dir, filepath.FromSlash(rel))
	dstRel := path.Join(results.ScoreboardRuns, results.ServerSlug(server), scenario, filepath.Base(src))
	dst := filepath.Join(dir, filepath.FromSlash(dstRel))
	if filepath.Clean(src) == filepath.Clean(dst) {
		return dstRel, nil // rendered again from the kept copy
	}
	if _, err := os.Stat(filepath.Join(src, results.HistoryFile)); err != nil {
		return "", nil // not here (a part run on another machine): not linked
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	files := keptFiles
	if needsWire != nil {
		switch need, err := needsWire(src); {
		case err != nil:
			return "", fmt.Errorf("keep %s: %w", rel, err)
		case need:
			files = append(slices.Clone(files), keptFile{model.WireFile, true})
		}
	}
	for _, f := range files {
		err := keepFile(src, dst, f.name, f.compress)
		if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("keep %s: %w", rel, err)
		}
	}
	switch err := results.RewriteSummary(dst); {
	case errors.Is(err, results.ErrNoHistory):
		// A run that could not start leaves an empty history: nothing
		// to keep or link.
		return "", os.RemoveAll(dst)
	case err != nil:
		return "", fmt.Errorf("keep %s: %w", rel, err)
	}
	return dstRel, nil
}

// keepFile copies src's file name into dst, gzipped (name.gz) when
// compress says so; a source kept gzipped already is copied as it is.
func keepFile(src, dst, name string, compress bool) error {
	if _, err := os.Stat(filepath.Join(src, name)); err != nil {
		if _, gzErr := os.Stat(filepath.Join(src, name+results.Gz)); gzErr == nil {
			return results.CopyFile(filepath.Join(src, name+results.Gz), filepath.Join(dst, name+results.Gz), 0o644)
		}
		return err
	}
	if compress {
		return results.CompressFile(filepath.Join(src, name), filepath.Join(dst, name+results.Gz), 0o644)
	}
	return results.CopyFile(filepath.Join(src, name), filepath.Join(dst, name), 0o644)
}

// relink points the page's runs at their kept copies and unlinks the rest.
func relink(p *results.ScoreboardPage, kept map[string]string) {
	for i := range p.Findings {
		for j := range p.Findings[i].Runs {
			r := &p.Findings[i].Runs[j]
			r.Dir = kept[r.Dir]
			var reruns []string
			for _, d := range r.Reruns {
				if k := kept[d]; k != "" {
					reruns = append(reruns, k)
				}
			}
			r.Reruns = reruns
		}
	}
	for i := range p.Differences {
		for j := range p.Differences[i].Sides {
			side := &p.Differences[i].Sides[j]
			runs := slices.Clone(side.Runs)
			for k := range runs {
				runs[k] = kept[runs[k]]
			}
			side.Runs = runs
		}
	}
	for i := range p.Report.Rows {
		cells := slices.Clone(p.Report.Rows[i].Cells)
		for j := range cells {
			c := &cells[j]
			c.Dir = kept[c.Dir]
			c.Reruns = slices.Clone(c.Reruns)
			for k := range c.Reruns {
				c.Reruns[k].Dir = kept[c.Reruns[k].Dir]
			}
		}
		p.Report.Rows[i].Cells = cells
	}
}

// checkPage checks that the links of the pages written into dir resolve
// there. Excepted are links to the repository's files, which
// the page reaches from results/scoreboard (two levels up) and the
// repository's own test checks; a link further out is a run not kept.
func checkPage(dir string, files []string) error {
	var errs []error
	for _, f := range files {
		rel, err := filepath.Rel(dir, f)
		if err != nil || !(strings.HasSuffix(rel, ".md") || strings.HasSuffix(rel, ".html")) {
			continue
		}
		for _, e := range results.CheckLinks(dir, filepath.ToSlash(rel), ".") {
			var le *results.LinkError
			if errors.As(e, &le) && le.Err == results.ErrBrokenLink && (le.Why != results.OutsideRoot || strings.HasPrefix(le.Target, "../../../")) {
				errs = append(errs, e)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrUnlinked, errors.Join(errs...))
	}
	return nil
}
