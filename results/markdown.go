package results

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/lockcheck/lockcheck/model"
)

// runServer is the server and backend the run's config (in the history's
// header) records: "valkey-8.1 (valkey-server 8.1.8), backend process";
// "" when it records none (a Redis lockcheck did not start).
func runServer(h *model.History) string {
	if h == nil {
		return ""
	}
	var cfg struct {
		Server  string `json:"server"`
		Backend string `json:"backend"`
	}
	if json.Unmarshal([]byte(h.Header.Meta["config"]), &cfg) != nil || cfg.Server == "" {
		return ""
	}
	return cfg.Server + ", backend " + cfg.Backend
}

// writeSummaryMarkdown writes summary.md: the table, the figures, every
// checker's explanation with its examples, the fault windows and the other
// files of the run directory that kept names as it holds them (it links no
// other).
func writeSummaryMarkdown(w io.Writer, s Summary, h *model.History, kept func(name string) string) error {
	bw := bufio.NewWriter(w)
	writeHeadline(bw, s)
	if s.Seed != 0 {
		fmt.Fprintf(bw, "Seed %d. ", s.Seed)
	}
	st := s.Stats
	fmt.Fprintf(bw, "%d ops over %s (%.1f ops/s, %.1f grants/s); %s.",
		st.Ops.Total(), FormatDuration(st.Span), st.OpsPerSec, st.GrantsPerSec, plural(st.Faults, "fault window"))
	if srv := runServer(h); srv != "" {
		fmt.Fprintf(bw, " Server: %s.", srv)
	}
	fmt.Fprintf(bw, "\n\n")
	if err := RenderMarkdown(bw, []Summary{s}); err != nil {
		return err
	}
	fmt.Fprintf(bw, "\n## Latency\n\n")
	fmt.Fprintf(bw, "| ops | count | p50 | p99 | max | mean |\n|:--|--:|--:|--:|--:|--:|\n")
	for _, l := range []struct {
		name string
		l    Latency
	}{{"acquire (granted)", st.Acquire}, {"acquire (gave up)", st.AcquireFail}, {"release", st.Release}} {
		fmt.Fprintf(bw, "| %s | %d | %s | %s | %s | %s |\n", l.name, l.l.Count,
			FormatDuration(l.l.P50), FormatDuration(l.l.P99), FormatDuration(l.l.Max), FormatDuration(l.l.Mean))
	}
	if p, ok := st.SlowestProcess(); ok {
		fmt.Fprintf(bw, "\nSlowest process: p%d waited up to %s (p50 %s, %d of %d acquires granted).\n",
			p.Process, FormatDuration(p.Wait.Max), FormatDuration(p.Wait.P50), p.Acquires.OK, p.Acquires.Total())
	}
	if h := st.Handoffs; h.Grouped {
		fmt.Fprintf(bw, "Hand-offs: %d within a process (between its threads), %d across processes.\n", h.Within, h.Across)
	}
	if n := starved(st); n > 0 {
		fmt.Fprintf(bw, "%d processes made blocking acquires and were never granted.\n", n)
	}
	if len(s.Parts) > 0 {
		fmt.Fprintf(bw, "\n## Implementations\n\n")
		writeParts(bw, s.Subject, s.Parts, st.Handoffs.Grouped, "- ")
	}
	fmt.Fprintf(bw, "\n## Checkers\n")
	writeSignatures(bw, s.Signatures)
	for _, r := range s.Report.Results {
		fmt.Fprintf(bw, "\n### %s: %s\n\n%s\n", r.Checker, verdictText(r.Verdict, r.Class), strings.TrimSpace(r.Explanation))
		if r.Count > len(r.Examples) && len(r.Examples) > 0 {
			fmt.Fprintf(bw, "\n%d violations; the first %d:\n", r.Count, len(r.Examples))
		}
		for _, e := range r.Examples {
			fmt.Fprintf(bw, "\n```\n%s\n```\n", strings.TrimRight(e.String(), "\n"))
		}
	}
	if t := s.Report.Truncated; t != nil {
		fmt.Fprintf(bw, "\nThe history's last line (line %d, %d bytes) was incomplete and was dropped: the run crashed mid-write.\n", t.Line, t.Bytes)
	} else if s.Report.Unfinished != "" {
		fmt.Fprintf(bw, "\nThe run did not finish: %s.\n", s.Report.Unfinished)
	}
	if h != nil && len(h.Faults) > 0 {
		fmt.Fprintf(bw, "\n## Faults\n\n")
		for _, f := range h.Faults {
			fmt.Fprintf(bw, "- %s\n", f)
		}
	}
	writeFilesSection(bw, kept)
	return bw.Flush()
}

// writeSignatures writes the signatures of the run's violations, what a
// catalogued bug's find is matched by (model.Signature); nothing for none.
func writeSignatures(w io.Writer, sigs []model.Signature) {
	if len(sigs) == 0 {
		return
	}
	parts := make([]string, len(sigs))
	for i, sg := range sigs {
		parts[i] = "`" + sg.String() + "`"
	}
	fmt.Fprintf(w, "\nSignatures of the violations: %s.\n", strings.Join(parts, ", "))
}

// writeHeadline writes summary.md's title: the verdict, or for a run with
// an expectation how the run went against it, then the scenario's
// expectation and the verdict in a line of their own.
func writeHeadline(w io.Writer, s Summary) {
	verdict := strings.ToUpper(string(s.Report.Verdict))
	j := s.Expected
	if j == nil {
		fmt.Fprintf(w, "# lockcheck: %s on %s: %s\n\n", orDash(s.Subject), orDash(s.Workload), verdict)
		return
	}
	fmt.Fprintf(w, "# lockcheck: %s on %s: %s\n\n", orDash(s.Subject), orDash(j.Scenario), j.Phrase(s.Report))
	fmt.Fprintf(w, "Scenario %s expects of %s: %s. Verdict: %s (workload %s).\n\n",
		orDash(j.Scenario), orDash(s.Subject), j.Label, verdict, orDash(s.Workload))
}

// writeFilesSection lists the files of the run directory that has says it
// holds, and shows the plots it holds; a directory without the timeline or
// the plots (a run kept for the record) says how to draw them again.
func writeFilesSection(w io.Writer, kept func(name string) string) {
	has := func(name string) bool { return kept(name) != "" }
	fmt.Fprintf(w, "\n## Files\n\n")
	for _, f := range []struct{ name, doc string }{
		{HTMLFile, ": the timeline: every op of every lock, holds, fault windows and findings"},
		{LinearizabilityFile, ": porcupine's view of the segments that are not linearizable"},
		{LatencyPlot, ": acquire latency over time"},
		{ThroughputPlot, ": grants per second over time"},
	} {
		if has(f.name) {
			fmt.Fprintf(w, "- [%s](%s)%s\n", f.name, f.name, f.doc)
		}
	}
	var data []string
	for _, name := range []string{HistoryFile, ConfigFile, ResultFile, model.WireFile} {
		if k := kept(name); k != "" {
			data = append(data, fmt.Sprintf("[%s](%s)", k, k))
		}
	}
	if len(data) > 0 {
		fmt.Fprintf(w, "- %s\n", strings.Join(data, ", "))
	}
	if !has(HTMLFile) || !has(LatencyPlot) || !has(ThroughputPlot) {
		fmt.Fprintf(w, "\nThe timeline and the plots are not kept here: `lockcheck check --out NEWDIR` on this directory draws them again from %s into NEWDIR.\n", HistoryFile)
	}
	for _, p := range []struct{ alt, name string }{{"acquire latency", LatencyPlot}, {"throughput", ThroughputPlot}} {
		if has(p.name) {
			fmt.Fprintf(w, "\n![%s](%s)\n", p.alt, p.name)
		}
	}
}

func starved(st Stats) int {
	n := 0
	for _, p := range st.Processes {
		if p.Starved {
			n++
		}
	}
	return n
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
