package results

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
)

// scoreboardIntro opens the page's statement of how a cell is scored.
const scoreboardIntro = "How a cell is scored. Each library runs every scenario of the catalog on every seed; each run's checkers judge each property:"

// scoreboardRules say what each cell text means and when a library is
// scored broken.
var scoreboardRules = []struct{ Term, Meaning string }{
	{"holds", "every run that checked the property found no violation. Every run of a cell is " +
		"`lockcheck run --scenario S --subject L --seed N --server V` for the page's seeds, with its verdict in [the report](report.md); " +
		"the page keeps the histories of its findings' runs, and a nightly run keeps every run's history as the workflow's artifact."},
	{"broken by S", "a run of scenario S broke a property the library claims, and every rerun of its exact `lockcheck run` line broke it again, and a script shows the library breaking alone " +
		"(each finding below gives the command, the explanation and the history)."},
	{"reproduced under S (adapter not ruled out)", "as broken, every rerun broke it again, but no script shows the library breaking alone yet: " +
		"the adapter is not ruled out, so the library is not called broken."},
	{"flaky: k of n (S)", "the violation came back in k of the n runs of the same command: a real violation, but a timing-dependent one."},
	{"broke once, not rerun", "the run was not repeated (--reruns 0, or every rerun failed to run): never scored as broken."},
	{"holds; expected break under S", "S is an *unsafe* scenario, one that breaks any lease-based lock by design (a holder stalled past its lease, " +
		"a restart that forgets the lock, a clock jump past the lease, a split brain). A violation there counts against the library only when " +
		"it is worse than expected: a checker the scenario's expectation requires valid or quiet fires (fencing tokens out of order on a lock " +
		"that claims fencing, FIFO or liveness broken outside the fault windows, a grant lost by a library expected to stay valid there, " +
		"such as Redisson with its WAIT on failover). A safe scenario expects nothing to break."},
	{"not claimed", "the library does not claim the property (FIFO without a fair lock, fencing without tokens); it is not judged on it."},
	{"not run: why", "the library cannot run the scenario's topology (a driver that dials one address, on Sentinel)."},
	{"not checked", "no run exercised the property's checker."},
	{"unknown", "a checker ran out of time; **error**: a run could not be made."},
}

// writeScoreboardMarkdown writes the page: the two tables, the rules, the
// findings and each library's grid.
func writeScoreboardMarkdown(w io.Writer, p ScoreboardPage) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Scoreboard: the Redis locks people run\n\n%s\n\n", scoreboardHeadline(p))
	if len(p.Meta.InProgress) > 0 {
		fmt.Fprintf(bw, "**Partial: still being written: %s.**\n\n", strings.Join(p.Meta.InProgress, ", "))
	}
	for _, src := range p.Report.Sources {
		if src.Interrupted {
			fmt.Fprintf(bw, "**Interrupted part: `%s` stopped early; its cells are a prefix of what it was to run.**\n\n", src.Path)
		}
	}
	if n := len(p.Meta.Replaced); n > 0 {
		fmt.Fprintf(bw, "%d cell(s) ran again in a later part; the later run is scored: %s.\n\n", n, strings.Join(p.Meta.Replaced[:min(n, 5)], "; ")+ifStr(n > 5, "; …"))
	}
	if len(p.Report.MissingShards) > 0 {
		fmt.Fprintf(bw, "**Incomplete: no output from shard(s) %s.**\n\n", strings.Join(p.Report.MissingShards, ", "))
	}
	fmt.Fprintf(bw, "## By property\n\n")
	writePropertyTable(bw, p.Scoreboard, "")
	fmt.Fprintf(bw, "\n## By fault class\n\n")
	writeFaultTable(bw, p.Scoreboard)
	fmt.Fprintf(bw, "\n%s\n\n", scoreboardIntro)
	for _, r := range scoreboardRules {
		fmt.Fprintf(bw, "- **%s**: %s\n", r.Term, r.Meaning)
	}
	writeFindings(bw, p.Scoreboard)
	writeAllowances(bw, p.Scoreboard)
	writeDifferences(bw, p.Scoreboard)
	fmt.Fprintf(bw, "\n## Each library: property × fault class\n")
	for _, row := range p.Rows {
		fmt.Fprintf(bw, "\n<a id=\"%s\"></a>\n### %s\n\n%s\n\n", row.anchor(), row.name(), subjectLine(row.Subject))
		writeGrid(bw, row, p.Faults)
	}
	writeScenarioClasses(bw, p.Faults, p.Report.Scenarios)
	fmt.Fprintf(bw, "\nEvery run: [report.md](%s) ([%s](%s), [%s](%s): gzipped).\n", ReportMarkdown, ReportHTML+Gz, ReportHTML+Gz, ReportJSON+Gz, ReportJSON+Gz)
	return bw.Flush()
}

// writeScoreboardTable writes table.md: the table by property alone, a
// word a cell, its links relative to the page's folder as every page's are
// (README.md shows it through ReadmeTable, and has room for little more:
// the page has each library's section).
func writeScoreboardTable(w io.Writer, p ScoreboardPage) error {
	fmt.Fprintf(w, "<!-- lockcheck scoreboard render wrote this from %s; README.md shows it (results.ReadmeTable) -->\n", path.Join(p.Dir, ScoreboardMarkdown))
	sb, note := readmeServer(p.Scoreboard)
	fmt.Fprint(w, "| library | version | claims |")
	for _, pr := range Properties {
		fmt.Fprintf(w, " %s |", pr.Name)
	}
	fmt.Fprint(w, "\n|---|---|---|"+strings.Repeat("---|", len(Properties))+"\n")
	for _, row := range sb.Rows {
		fmt.Fprintf(w, "| %s | %s | %s |", row.Subject.Name, versionText(row.Subject), strings.Join(row.Subject.Claims, ", "))
		for _, pr := range Properties {
			fmt.Fprintf(w, " %s |", row.Property[pr.Name].Word())
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n%s \"holds*\": broke only under unsafe scenarios, as any lease lock must; \"–\": not claimed. Each library: its scenarios, findings, commands and histories on [the page](%s).\n", scoreboardHeadline(p), ScoreboardMarkdown)
	_, err := fmt.Fprint(w, note)
	return err
}

// relativeLink matches a Markdown link target that is a path relative to
// its page (not an anchor, an absolute path or a URL).
var relativeLink = regexp.MustCompile(`\]\(([^)#/:][^):]*)\)`)

// ReadmeTable is table.md (its generator's comment line dropped) as the
// repository's README.md shows it: each relative link, written from the
// page's folder dir (relative to the repository's root), made to reach
// the same file from the root.
func ReadmeTable(table, dir string) string {
	if _, body, ok := strings.Cut(table, "-->\n"); ok {
		table = body
	}
	return relativeLink.ReplaceAllStringFunc(table, func(m string) string {
		return "](" + path.Join(dir, m[2:len(m)-1]) + ")"
	})
}

// scoreboardHeadline says what the page covers.
func scoreboardHeadline(p ScoreboardPage) string {
	cells := 0
	for _, r := range p.Rows {
		cells += r.Cells
	}
	s := fmt.Sprintf("%d libraries, %d scenario × seed cells in all (skipped ones included), seeds %s; generated %s%s by `lockcheck scoreboard`.",
		libraries(p.Rows), cells, seedsText(p.Seeds, p.Meta.SeedBases), p.Report.Generated.UTC().Format("2006-01-02 15:04 MST"), AtCommit(p.Report.Commit))
	if len(p.Servers) > 1 {
		s = strings.Replace(s, " cells in all (skipped ones included)", fmt.Sprintf(" × server cells in all (skipped ones included), on %d servers (a row per library × server)", len(p.Servers)), 1)
	}
	if p.Meta.Duration > 0 {
		s += fmt.Sprintf(" Every run lasted %s (--duration).", p.Meta.Duration)
	}
	if len(p.Meta.Servers) > 0 {
		s += fmt.Sprintf(" Server: %s.", strings.Join(p.Meta.Servers, "; "))
	}
	return s
}

func seedsText(seeds, bases []int64) string {
	if len(seeds) == 0 {
		return "none"
	}
	s := fmt.Sprint(seeds[0])
	if len(seeds) > 1 {
		s = fmt.Sprintf("%d–%d", seeds[0], seeds[len(seeds)-1])
	}
	if len(bases) == 1 {
		s += fmt.Sprintf(" (--seed-base %d)", bases[0])
	}
	return s
}

// subjectLine names the library, its version and its claims.
func subjectLine(s SubjectInfo) string {
	lib := s.Library
	if lib == "" {
		lib = s.Name
	}
	v := s.Version
	if v == "" {
		v = "version unknown"
		if s.VersionError != "" {
			v += " (" + s.VersionError + ")"
		}
	}
	claims := "none"
	if len(s.Claims) > 0 {
		claims = strings.Join(s.Claims, ", ")
	}
	line := fmt.Sprintf("%s %s; claims: %s.", lib, v, claims)
	if s.Doc != "" {
		line += " " + s.Doc + "."
	}
	return line
}

// versionText is a row's version cell.
func versionText(s SubjectInfo) string {
	if s.Version == "" {
		return "?"
	}
	return s.Version
}

// writePropertyTable writes the table by property, Score.Short in each cell
// (linked to the findings where there are some); its finding links go to
// base (the page, "" for the page itself).
func writePropertyTable(w io.Writer, sb Scoreboard, base string) {
	fmt.Fprint(w, "| library |"+serverHead(sb)+" version | claims |")
	for _, p := range Properties {
		fmt.Fprintf(w, " %s |", p.Name)
	}
	fmt.Fprint(w, "\n|---|"+serverRule(sb)+"---|---|"+strings.Repeat("---|", len(Properties))+"\n")
	for _, row := range sb.Rows {
		fmt.Fprintf(w, "| %s |%s %s | %s |", row.Subject.Name, serverCell(sb, row), versionText(row.Subject), strings.Join(row.Subject.Claims, ", "))
		for _, p := range Properties {
			fmt.Fprintf(w, " %s |", mdText(row.Property[p.Name], row.Property[p.Name].Short(), base))
		}
		fmt.Fprintln(w)
	}
}

func writeFaultTable(w io.Writer, sb Scoreboard) {
	fmt.Fprint(w, "| library |"+serverHead(sb)+" version |")
	for _, f := range sb.Faults {
		fmt.Fprintf(w, " %s |", f)
	}
	fmt.Fprint(w, "\n|---|"+serverRule(sb)+"---|"+strings.Repeat("---|", len(sb.Faults))+"\n")
	for _, row := range sb.Rows {
		fmt.Fprintf(w, "| %s |%s %s |", row.Subject.Name, serverCell(sb, row), versionText(row.Subject))
		for _, f := range sb.Faults {
			fmt.Fprintf(w, " %s |", mdFaultScore(row, f))
		}
		fmt.Fprintln(w)
	}
}

// mdFaultScore is a fault-class cell: the worst news over the properties,
// naming the properties it concerns.
func mdFaultScore(row ScoreRow, fault string) string {
	s, ok := row.Fault[fault]
	if !ok {
		return "-"
	}
	switch s.State {
	case Broken, Reproduced, Flaky, Unproven, Expected:
		var props []string
		for _, p := range Properties {
			if g := row.Grid[p.Name][fault]; g.State == s.State {
				props = append(props, p.Name)
			}
		}
		s.Hits, s.Runs = 0, 0 // counts of several properties do not add up
		return mdText(s, s.Short(), "") + " (" + strings.Join(props, ", ") + ")"
	}
	return mdText(s, s.Short(), "")
}

func writeGrid(w io.Writer, row ScoreRow, faults []string) {
	fmt.Fprint(w, "| property |")
	for _, f := range faults {
		fmt.Fprintf(w, " %s |", f)
	}
	fmt.Fprint(w, "\n|---|"+strings.Repeat("---|", len(faults))+"\n")
	for _, p := range Properties {
		fmt.Fprintf(w, "| %s |", p.Name)
		for _, f := range faults {
			s, ok := row.Grid[p.Name][f]
			if !ok {
				fmt.Fprint(w, " - |")
				continue
			}
			fmt.Fprintf(w, " %s |", mdScore(s))
		}
		fmt.Fprintln(w)
	}
}

// mdScore renders a score, bold when it is a finding, linked to the
// findings behind it.
func mdScore(s Score) string { return mdText(s, s.Text(), "") }

// mdText renders a score as text, bold when it is a finding, linked to
// the findings behind it on the page at base ("": this page).
func mdText(s Score, text, base string) string {
	t := strings.ReplaceAll(text, "|", "/")
	switch s.State {
	case Broken, Reproduced, Flaky, Unproven:
		var links []string
		for i, f := range s.Findings {
			links = append(links, fmt.Sprintf("[%d](%s#%s)", i+1, base, anchor(f)))
		}
		return "**" + t + "** " + strings.Join(links, " ")
	}
	return t
}

// anchor is a finding's heading anchor.
func anchor(key string) string {
	r := strings.NewReplacer("/", "-", ".", "", " ", "-")
	return "finding-" + strings.ToLower(r.Replace(key))
}

func writeFindings(w io.Writer, sb Scoreboard) {
	fmt.Fprintf(w, "\n## Findings\n")
	if len(sb.Findings) == 0 {
		fmt.Fprintf(w, "\nNone: no library broke a property it claims, beyond what an unsafe scenario breaks in any lease lock.\n")
		return
	}
	for _, f := range sb.Findings {
		fmt.Fprintf(w, "\n<a id=\"%s\"></a>\n### %s: %s under %s (%s)\n\n", anchor(f.Key), f.name(), f.Property, f.Scenario, f.State)
		fmt.Fprintf(w, "Fault class %s; checker `%s`%s.\n", f.Fault, f.Checker, ifStr(f.Class() != "", ", class "+f.Class()))
		if f.Known != nil {
			fmt.Fprintf(w, "A script shows this library breaking %s alone, without lockcheck or its adapter: [`%s`](%s): %s. "+
				"Whether this run broke it the same way is for the explanation below to say.\n", f.Property, f.Known.Script, repoLink(f.Known.Script), f.Known.Claim)
		} else {
			fmt.Fprintf(w, "Adapter not yet ruled out: no script shows it against the library alone.\n")
		}
		for _, r := range f.Runs {
			fmt.Fprintf(w, "\n- seed %d: broke in %d of %d runs of `%s`; %s", r.Seed, r.Hits, r.Runs, r.Command, r.faultText())
			if r.Dir != "" {
				fmt.Fprintf(w, "; history [%s](%s)", r.Dir, r.Dir)
			}
			for k, d := range r.Reruns {
				fmt.Fprintf(w, ", [rerun %d](%s)", k+1, d)
			}
			fmt.Fprintln(w)
			if r.Example != "" {
				fmt.Fprintf(w, "\n  ```\n%s\n  ```\n", indent(r.Example, "  "))
			}
		}
	}
}

// faultText says whether the run's break went beyond the fault.
func (r FindingRun) faultText() string {
	switch {
	case r.Beyond:
		return "**beyond the fault** (no fault of the scenario allows it)"
	case r.AllowedBy != "":
		return "within the fault (allowed by " + r.AllowedBy + ")"
	}
	return "within the fault"
}

// writeAllowances lists the evidence behind every "holds*" cell: for each
// library and property, each unsafe scenario that broke it, what the
// checker found allowed the break, and the command that reruns the run.
func writeAllowances(w io.Writer, sb Scoreboard) {
	fmt.Fprintf(w, "\n## holds*: what allowed each expected break\n\n")
	fmt.Fprintf(w, "A break is expected when its scenario's faults allow it and nothing in the run went beyond them (the fault-allowance checker found it valid). "+
		"*Allowed by* is the window or lease the property's checker named; else the windows and leases the fault-allowance checker found allowed the run's anomalies, "+
		"with how many each (read from the run's history by this build when the run did not record them).\n\n")
	fmt.Fprintf(w, "| library | property | scenario | seed | allowed by | rerun |\n|---|---|---|---|---|---|\n")
	n := 0
	for _, row := range sb.Rows {
		for _, p := range Properties {
			for _, a := range expectedAllowances(row, p, sb.Faults) {
				n++
				fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %s |\n", row.name(), p.Name, a.Scenario, a.Seed,
					strings.ReplaceAll(a.evidence(), "|", "/"), codeOrDash(a.Command))
			}
		}
	}
	if n == 0 {
		fmt.Fprintf(w, "| – | – | – | – | no expected break | – |\n")
	}
}

// expectedAllowances are the allowances of row's holds* cells of p, by
// fault class: a worse state elsewhere (a finding) hides none of them.
func expectedAllowances(row ScoreRow, p Property, faults []string) []Allowance {
	var out []Allowance
	for _, f := range faults {
		if g := row.Grid[p.Name][f]; g.State == Expected {
			out = append(out, g.Allowances...)
		}
	}
	return out
}

// codeOrDash is a command as code, or a dash for none.
func codeOrDash(cmd string) string {
	if cmd == "" {
		return "–"
	}
	return "`" + strings.ReplaceAll(cmd, "|", "/") + "`"
}

// repoLink links a repository path from the page (results/scoreboard/).
func repoLink(p string) string { return "../../" + p }

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// writeScenarioClasses lists the scenarios of each fault class, safe or
// unsafe, with what they do.
func writeScenarioClasses(w io.Writer, faults []string, scs []ScenarioInfo) {
	if len(scs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Scenarios by fault class\n")
	for _, f := range faults {
		fmt.Fprintf(w, "\n**%s**\n\n", f)
		for _, sc := range scs {
			if orStr(sc.FaultClass, "other") == f {
				fmt.Fprintf(w, "- `%s` (%s)%s\n", sc.Name, kind(sc.Safe), ifStr(sc.Doc != "", ": "+sc.Doc))
			}
		}
	}
}

// evidence says what allowed a holds* cell's break: the allowance its
// checker named, else those the fault-allowance checker found, else that
// the scenario tolerates the break (and, when that checker ran, that
// nothing went beyond its faults).
func (a Allowance) evidence() string {
	switch {
	case a.AllowedBy != "":
		return a.AllowedBy
	case len(a.Within) > 0:
		return "within the faults: " + strings.Join(a.Within, "; ")
	case !a.Judged:
		return "the scenario tolerates this break (no fault-allowance checker for this kind of object)"
	}
	return "the scenario tolerates this break; the fault-allowance checker found no anomaly beyond its faults and none it had to allow"
}
