package results

import (
	"slices"
	"sort"
)

// ServerDifference is one verdict that differs between servers: a
// library's property under one scenario, scored over its seeds on each
// server that ran it.
type ServerDifference struct {
	Subject  string           `json:"subject"`
	Scenario string           `json:"scenario"`
	Property string           `json:"property"`
	Sides    []DifferenceSide `json:"sides"`
}

// DifferenceSide is one server's side of a difference: its score (with
// the keys of its findings) and its cells' run directories, by seed.
type DifferenceSide struct {
	Server string   `json:"server"`
	Score  Score    `json:"score"`
	Runs   []string `json:"runs,omitempty"`
}

// unrecorded labels the cells of a page of several servers whose matrix
// recorded none (written before --server).
const unrecorded = "unrecorded"

// serverGroup is one server's cells of a library.
type serverGroup struct {
	label string
	cells []MatrixCell
}

// serverGroups splits a library's cells by server, in the order of servers
// (the page's servers; nil: one group of them all, unlabelled), the cells
// of no recorded server last.
func serverGroups(cells []MatrixCell, servers []string) []serverGroup {
	if len(cells) == 0 {
		return nil
	}
	if len(servers) == 0 {
		return []serverGroup{{cells: cells}}
	}
	var out []serverGroup
	for _, label := range append(slices.Clone(servers), unrecorded) {
		var mine []MatrixCell
		for _, c := range cells {
			if orStr(ServerLabel(c.Server), unrecorded) == label {
				mine = append(mine, c)
			}
		}
		if len(mine) > 0 {
			out = append(out, serverGroup{label, mine})
		}
	}
	return out
}

// serverDifferences lists, on a page of several servers, every property of
// a library under a scenario whose score is not the same on every server
// that ran it, in subject, scenario, property order.
// The second list names the library × scenario pairs ("redisson under
// no-faults") that no two servers gave a verdict on: nothing was compared.
func serverDifferences(bySubject map[string][]MatrixCell, infos []SubjectInfo, servers []string, known []KnownFinding) ([]ServerDifference, []string) {
	if len(servers) < 2 {
		return nil, nil
	}
	var out []ServerDifference
	var uncompared []string
	for _, si := range infos {
		byScenario := map[string][]MatrixCell{}
		for _, c := range bySubject[si.Name] {
			byScenario[c.Scenario] = append(byScenario[c.Scenario], c)
		}
		scenarios := make([]string, 0, len(byScenario))
		for sc := range byScenario {
			scenarios = append(scenarios, sc)
		}
		sort.Strings(scenarios)
		for _, sc := range scenarios {
			groups := serverGroups(byScenario[sc], servers)
			if len(groups) < 2 {
				continue
			}
			compared := false
			for _, p := range Properties {
				d, ok := differs(si, sc, p.of(si), groups, known)
				compared = compared || len(d.Sides) > 1
				if ok {
					out = append(out, d)
				}
			}
			if !compared {
				uncompared = append(uncompared, si.Name+" under "+sc)
			}
		}
	}
	return out, uncompared
}

// differs scores property p on each server's cells of one scenario and
// reports whether the verdicts are not all the same. Only the cells whose
// score is a verdict take part, and the servers with one: a cell that
// could not run, was not run, or whose checker ran out of time decides
// nothing (the rows show it).
func differs(si SubjectInfo, scenario string, p Property, groups []serverGroup, known []KnownFinding) (ServerDifference, bool) {
	d := ServerDifference{Subject: si.Name, Scenario: scenario, Property: p.Name}
	same := true
	for _, g := range groups {
		side := DifferenceSide{Server: g.label}
		for _, c := range g.cells {
			s := scoredCell(si, g.label, judgedAs(p, c), c, known)
			if !isVerdict(s.State) {
				continue
			}
			side.Score = side.Score.merge(s)
			if c.Dir != "" {
				side.Runs = append(side.Runs, c.Dir)
			}
		}
		if side.Score.State == "" {
			continue
		}
		same = same && (len(d.Sides) == 0 || side.Score.State == d.Sides[0].Score.State)
		d.Sides = append(d.Sides, side)
	}
	return d, len(d.Sides) > 1 && !same
}

// isVerdict says the state is what the runs found of a property, not that
// they found nothing (not claimed, not run, not checked, unknown, error).
func isVerdict(s State) bool {
	switch s {
	case Holds, Expected, Unproven, Flaky, Reproduced, Broken:
		return true
	}
	return false
}
