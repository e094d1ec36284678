package results

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

var twoServers = []string{"redis-7.0 (redis-server 7.0.15), backend process", "valkey-8.1 (valkey-server 8.1.8), backend process"}

// randomCells are subjects × scenarios × seeds on each server, every
// checker of every property valid or invalid at random (the run and each
// of its reruns), some invalid ones tolerated: every cell gives a verdict.
func randomCells(rng *rand.Rand, servers []string) []MatrixCell {
	var cells []MatrixCell
	verdicts := func() []CheckerVerdict {
		cvs := []CheckerVerdict{{Checker: model.CheckWellFormed, Verdict: model.Valid}}
		for _, p := range Properties {
			v := model.Valid
			if rng.IntN(4) == 0 {
				v = model.Invalid
			}
			cvs = append(cvs, CheckerVerdict{Checker: p.Checker, Verdict: v})
		}
		return cvs
	}
	for _, srv := range servers {
		for _, subj := range []string{"lock-a", "lock-b"} {
			for i, sc := range []string{"sc-none", "sc-net", "sc-pause"} {
				for seed := int64(1); seed <= 3; seed++ {
					c := MatrixCell{Scenario: sc, Subject: subj, Seed: seed, Server: srv, FaultClass: FaultOrder[i],
						Checkers: verdicts(), Dir: fmt.Sprintf("%s/%s-%d", sc, subj, seed)}
					if rng.IntN(3) == 0 {
						c.Tolerated = []string{model.CheckLinearizable}
					}
					for range rng.IntN(3) {
						c.Reruns = append(c.Reruns, Rerun{Checkers: verdicts()})
					}
					cells = append(cells, c)
				}
			}
		}
	}
	return cells
}

// reportOf merges cells as MergeLatest would: one row per scenario ×
// subject × server.
func reportOf(cells []MatrixCell) Report {
	mg := newMerger(".", time.Unix(0, 0))
	for _, c := range cells {
		rep := &mg.rep
		i, ok := mg.idx[rowID(c)]
		if !ok {
			i = len(rep.Rows)
			mg.idx[rowID(c)] = i
			rep.Rows = append(rep.Rows, ReportRow{Scenario: c.Scenario, Subject: c.Subject, Server: c.Server})
		}
		rep.Rows[i].add(c)
	}
	return mg.report(true)
}

func filterCells(cells []MatrixCell, keep func(MatrixCell) bool) []MatrixCell {
	var out []MatrixCell
	for _, c := range cells {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

var serverSubjects = []SubjectInfo{{Name: "lock-a", Claims: []string{ClaimFenced}}, {Name: "lock-b"}}

// TestServerRowsAreEachServersPivot: on random two-server matrices, each
// row of the two-server scoreboard scores what the scoreboard of that
// server's cells alone scores (a second way to the same rows).
func TestServerRowsAreEachServersPivot(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 7))
		cells := randomCells(rng, twoServers)
		sb := Pivot(reportOf(cells), serverSubjects, KnownFindings)
		if len(sb.Rows) != 4 || len(sb.Servers) != 2 {
			t.Fatalf("seed %d: %d rows, servers %v; want 4 rows on 2 servers", seed, len(sb.Rows), sb.Servers)
		}
		for _, row := range sb.Rows {
			alone := Pivot(reportOf(filterCells(cells, func(c MatrixCell) bool { return ServerLabel(c.Server) == row.Server })), serverSubjects, KnownFindings)
			var want ScoreRow
			for _, r := range alone.Rows {
				if r.Subject.Name == row.Subject.Name {
					want = r
				}
			}
			for _, p := range Properties {
				if g, w := row.Property[p.Name], want.Property[p.Name]; g.State != w.State || g.Hits != w.Hits || g.Runs != w.Runs {
					t.Errorf("seed %d: %s on %s, %s: %+v, alone %+v", seed, row.Subject.Name, row.Server, p.Name, g, w)
				}
			}
		}
	}
}

// TestServerDifferencesAgree: on random two-server matrices, a difference
// is listed exactly where the one-scenario scoreboards of the two servers
// score a property differently (each built alone: a second way to the
// same list).
func TestServerDifferencesAgree(t *testing.T) {
	listed := 0
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 11))
		cells := randomCells(rng, twoServers)
		sb := Pivot(reportOf(cells), serverSubjects, KnownFindings)
		got := map[string]bool{}
		for _, d := range sb.Differences {
			got[d.Subject+"/"+d.Scenario+"/"+d.Property] = true
			if len(d.Sides) != 2 || len(d.Sides[0].Runs) != 3 || len(d.Sides[1].Runs) != 3 {
				t.Errorf("seed %d: %+v: want two sides of 3 histories", seed, d)
			}
		}
		listed += len(got)
		for _, si := range serverSubjects {
			for _, sc := range []string{"sc-none", "sc-net", "sc-pause"} {
				var states [2]map[string]State
				for i, srv := range twoServers {
					one := filterCells(cells, func(c MatrixCell) bool { return c.Server == srv && c.Scenario == sc && c.Subject == si.Name })
					states[i] = map[string]State{}
					for _, p := range Properties {
						states[i][p.Name] = Pivot(reportOf(one), serverSubjects, KnownFindings).Rows[0].Property[p.Name].State
					}
				}
				for _, p := range Properties {
					key := si.Name + "/" + sc + "/" + p.Name
					if want := states[0][p.Name] != states[1][p.Name] && states[0][p.Name] != NotClaimed; got[key] != want {
						t.Errorf("seed %d: %s listed %v, the servers alone score %s and %s", seed, key, got[key], states[0][p.Name], states[1][p.Name])
					}
				}
			}
		}
	}
	if listed == 0 {
		t.Fatal("no difference in 30 random matrices: the test compares nothing")
	}
}

// TestDifferencesSkipNonVerdicts: a cell that errored or was not run
// decides nothing: no difference against a server whose cell holds.
func TestDifferencesSkipNonVerdicts(t *testing.T) {
	ok := []CheckerVerdict{{Checker: model.CheckWellFormed, Verdict: model.Valid}, {Checker: model.CheckMutualExclusion, Verdict: model.Valid}}
	cells := []MatrixCell{
		{Scenario: "s", Subject: "lock-b", Seed: 1, Server: twoServers[0], Checkers: ok},
		{Scenario: "s", Subject: "lock-b", Seed: 1, Server: twoServers[1], Error: "driver failed"},
		{Scenario: "s", Subject: "lock-b", Seed: 2, Server: twoServers[1], Checkers: ok},
		{Scenario: "t", Subject: "lock-b", Seed: 1, Server: twoServers[0], Checkers: ok},
		{Scenario: "t", Subject: "lock-b", Seed: 1, Server: twoServers[1], Skip: "no topology"},
	}
	sb := Pivot(reportOf(cells), serverSubjects, nil)
	if len(sb.Differences) != 0 {
		t.Errorf("differences from cells that decided nothing: %+v", sb.Differences)
	}
	if len(sb.Uncompared) != 1 || sb.Uncompared[0] != "lock-b under t" {
		t.Errorf("uncompared %q, want [lock-b under t] (s has a verdict on both servers)", sb.Uncompared)
	}
}

// TestTwoServerPageRenders: the Markdown and HTML pages of two servers have
// the server column, a row per library × server and the differences
// section with both sides; one server's page is the page of the same cells
// recording no server, but for the headline's "Server:".
func TestTwoServerPageRenders(t *testing.T) {
	cells := randomCells(rand.New(rand.NewPCG(3, 11)), twoServers)
	p := ScoreboardPage{Report: reportOf(cells), Dir: "results/scoreboard-servers"}
	p.Scoreboard = Pivot(p.Report, serverSubjects, KnownFindings)
	var md, html bytes.Buffer
	if err := writeScoreboardMarkdown(&md, p); err != nil {
		t.Fatal(err)
	}
	if err := writeScoreboardHTML(&html, p); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| library | server | version | claims |", "| lock-a | redis-7.0 |", "| lock-a | valkey-8.1 |", "### lock-b on valkey-8.1", "## Differs between servers", "2 libraries, 36 scenario × seed × server cells in all (skipped ones included), on 2 servers"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("README.md lacks %q", w)
		}
	}
	if n := strings.Count(md.String(), "\n- lock-"); n != len(p.Differences) || n == 0 {
		t.Errorf("README.md lists %d differences, the scoreboard has %d", n, len(p.Differences))
	}
	for _, w := range []string{"<th>server</th>", "<h2>Differs between servers</h2>", "<h3>lock-b on valkey-8.1</h3>"} {
		if !strings.Contains(html.String(), w) {
			t.Errorf("scoreboard.html lacks %q", w)
		}
	}
	onOne := filterCells(cells, func(c MatrixCell) bool { return c.Server == twoServers[0] })
	bare := make([]MatrixCell, len(onOne))
	for i, c := range onOne {
		c.Server = ""
		bare[i] = c
	}
	render := func(cells []MatrixCell, meta RunMeta) string {
		p := ScoreboardPage{Report: reportOf(cells), Meta: meta}
		p.Scoreboard = Pivot(p.Report, serverSubjects, KnownFindings)
		var b bytes.Buffer
		_ = writeScoreboardMarkdown(&b, p)
		_ = writeScoreboardTable(&b, p)
		return b.String()
	}
	got := strings.ReplaceAll(render(onOne, RunMeta{Servers: twoServers[:1]}), " Server: "+twoServers[0]+".", "")
	if want := render(bare, RunMeta{}); got != want {
		t.Errorf("one server's page differs from the page without servers:\n%s\n---\n%s", got, want)
	}
}
