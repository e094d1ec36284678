package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lockcheck/lockcheck/results"

	"github.com/lockcheck/lockcheck/workloads/rediscover"
)

// rediscoverCmd is `lockcheck rediscover`: for each bug of the catalog of
// known bugs (or --bugs), it hunts the buggy release with the hunt's
// general mix, then the fixed release with the same seed and budget
// (package rediscover), and prints one row per bug: found or not, how
// soon, the class, the reproduction and whether the fixed release stayed
// clean. It exits 1 when a fixed release was falsely flagged, 2 on bad
// input or when a hunt could not run, else 0 (a bug not found is a
// result, not a failure).
func rediscoverCmd(ctx context.Context, e *env, args []string) (int, error) {
	f, err := parseRediscoverFlags(e, args)
	if err != nil {
		return exitUsage, err
	}
	if f.list {
		printCatalog(e.stdout, f.selected)
		return exitValid, nil
	}
	if e.stopValidated("rediscover") {
		return exitValid, nil
	}
	var rep *rediscover.Report
	if f.merge != "" {
		if rep, err = mergeRediscoveries(splitList(f.merge)); err != nil {
			return exitUsage, err
		}
		rep.From = splitList(f.merge)
		rep.Rejudge(f.all) // against the catalog as it is now
		if f.bugs == "" {
			rep.Cover(f.all, "not in the merged reports")
		}
		if f.contrast > 0 {
			err = rediscover.AddContrasts(ctx, rediscover.Config{Contrast: f.contrast, Out: f.runs}, rep)
		}
	} else {
		sweepStale(ctx, e)
		p := &rediscoverPrinter{huntPrinter: huntPrinter{ctx: ctx, e: e}}
		progress := newTally("lockcheck rediscover", "bugs", len(f.selected), true)
		cfg := f.config(rediscoverProgress{p, progress})
		fmt.Fprintf(e.stderr, "lockcheck rediscover: %d bugs, seed %d, each release hunted for %v\n", len(cfg.Bugs), cfg.Seed, cfg.Budget)
		stopProgress := e.progress(progress.line)
		rep, err = rediscover.Run(ctx, cfg)
		stopProgress()
		if rep == nil {
			return exitUsage, err
		}
	}
	if berr := rediscover.AttachBisections(rep, f.bisections); berr != nil {
		return exitUsage, fmt.Errorf("--bisections: %w", berr)
	}
	if werr := writeRediscovery(e, rep, f.out, f.json); werr != nil {
		return exitUsage, werr
	}
	switch t := rep.Totals; {
	case interrupted(ctx):
		return exitInterrupted, nil
	case err != nil:
		return exitUsage, err
	case t.FixedFlagged > 0:
		return exitInvalid, nil
	case t.Failed > 0 || rowsFailed(rep):
		return exitUsage, fmt.Errorf("a hunt could not run (see the table)")
	}
	return exitValid, nil
}

// mergeRediscoveries reads the JSON reports at paths (each as kept: a
// name ending in .gz is read decompressed) and merges them
// (rediscover.Merge).
func mergeRediscoveries(paths []string) (*rediscover.Report, error) {
	var reps []*rediscover.Report
	for _, p := range paths {
		b, err := results.ReadKept(p)
		if err != nil {
			return nil, usagef("--merge: %v", err)
		}
		rep, err := rediscover.ReadJSON(bytes.NewReader(b))
		if err != nil {
			return nil, usagef("--merge %s: %v", p, err)
		}
		reps = append(reps, rep)
	}
	rep, err := rediscover.Merge(reps...)
	if err != nil {
		return nil, usagef("--merge: %v", err)
	}
	return rep, nil
}

// rowsFailed says whether a fixed release's hunt could not run.
func rowsFailed(rep *rediscover.Report) bool {
	for _, r := range rep.Rows {
		if r.FixedOutcome == rediscover.FixedFailed {
			return true
		}
	}
	return false
}

// writeRediscovery prints the table on stdout (on stderr when the JSON
// goes to stdout) and writes the Markdown page (out) and the JSON report
// (js; "-": stdout) when asked.
func writeRediscovery(e *env, rep *rediscover.Report, out, js string) error {
	var md bytes.Buffer
	if err := rediscover.WriteMarkdown(&md, rep); err != nil {
		return err
	}
	table := e.stdout
	if js == "-" {
		table = e.stderr
	}
	if _, err := table.Write(md.Bytes()); err != nil {
		return err
	}
	if out != "" {
		page := "# Rediscovery: known bugs of released lock libraries, hunted again\n\n" +
			fmt.Sprintf("Written by `lockcheck rediscover` (docs/hunt.md) from results/known-bugs.json on %s, lockcheck at commit %s.\n\n",
				time.Now().UTC().Format(time.DateOnly), pageCommit()) + md.String()
		if err := writeFileAll(out, []byte(page)); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	if js == "" {
		return nil
	}
	var buf bytes.Buffer
	if err := rediscover.WriteJSON(&buf, rep); err != nil {
		return err
	}
	if js == "-" {
		_, err := e.stdout.Write(buf.Bytes())
		return err
	}
	if err := writeFileAll(js, buf.Bytes()); err != nil {
		return fmt.Errorf("--json: %w", err)
	}
	return nil
}

// pageCommit is the short commit a page was written at: the binary's
// (results.BuildCommit), else the checkout's HEAD (a build without VCS
// stamps), else "unknown".
func pageCommit() string {
	rev, mod, _ := strings.Cut(results.BuildCommit(), " ")
	if rev == "" {
		out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
		if rev = strings.TrimSpace(string(out)); err != nil || rev == "" {
			return "unknown"
		}
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	if mod != "" {
		rev += " " + mod
	}
	return rev
}

// writeFileAll writes data to path, making its directory.
func writeFileAll(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// printCatalog prints the catalog's bugs, one a line.
func printCatalog(w io.Writer, bugs []rediscover.Bug) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLIBRARY\tBUGGY → FIXED\tPROPERTY\tSIGNATURE\tPRODUCIBLE")
	for _, b := range bugs {
		fmt.Fprintln(tw, describeBug(b))
	}
	tw.Flush()
}

// rediscoverPrinter prints a rediscovery's progress on stderr: each
// hunt's as `lockcheck hunt` does, and a line per release and per bug.
type rediscoverPrinter struct {
	huntPrinter
}

var _ rediscover.Observer = (*rediscoverPrinter)(nil)

func (p *rediscoverPrinter) Hunting(b rediscover.Bug, side rediscover.Side, rel rediscover.Release) {
	as := ""
	if rel.StandIn {
		as = " (as " + rel.Subject + ")"
	}
	if rel.NotRun != "" {
		fmt.Fprintf(p.e.stderr, "lockcheck rediscover: %s: %s release %s not run: %s\n", b.ID, side, rel.Name, rel.NotRun)
		return
	}
	fmt.Fprintf(p.e.stderr, "lockcheck rediscover: %s: hunting the %s release %s%s\n", b.ID, side, rel.Name, as)
}

func (p *rediscoverPrinter) Judged(r rediscover.Row) {
	found := string(r.Outcome)
	if f := r.Buggy.Find; f != nil {
		found = fmt.Sprintf("found with its signature %s in %v (run %d, %s)", r.Bug.Signature, f.Detection.Round(time.Second), f.Run, f.Class)
	} else if r.Why != "" {
		found += " (" + r.Why + ")"
	}
	fmt.Fprintf(p.e.stderr, "lockcheck rediscover: %s: buggy %s: %s; fixed %s: %s\n", r.Bug.ID, r.Bug.Buggy, found, r.Bug.Fixed, r.FixedOutcome)
}
