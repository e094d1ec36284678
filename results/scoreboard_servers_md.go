package results

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// name is the row's heading: the library, and its server on a page of
// several ("redisson on valkey-8.1").
func (r ScoreRow) name() string { return withServer(r.Subject.Name, r.Server) }

// anchor is the id of the row's section on the page ("lib-redisson-on-redis-70").
func (r ScoreRow) anchor() string {
	return "lib-" + strings.ToLower(strings.NewReplacer("/", "-", ".", "", " ", "-", "@", "-").Replace(r.name()))
}

// name is the finding's subject, and its server on a page of several.
func (f Finding) name() string { return withServer(f.Subject, f.Server) }

func withServer(subject, server string) string {
	if server == "" {
		return subject
	}
	return subject + " on " + server
}

// libraries counts the libraries of rows (a library has a row per server
// on a page of several).
func libraries(rows []ScoreRow) int {
	var names []string
	for _, r := range rows {
		if !slices.Contains(names, r.Subject.Name) {
			names = append(names, r.Subject.Name)
		}
	}
	return len(names)
}

// serverHead, serverRule and serverCell are the server column of a table:
// nothing on a page of one server.
func serverHead(sb Scoreboard) string { return ifStr(len(sb.Servers) > 1, " server |") }
func serverRule(sb Scoreboard) string { return ifStr(len(sb.Servers) > 1, "---|") }
func serverCell(sb Scoreboard, r ScoreRow) string {
	return ifStr(len(sb.Servers) > 1, " "+r.Server+" |")
}

// readmePreferred is the server README's table shows from a page of
// several: Debian's redis-server, the one the main scoreboard runs on.
const readmePreferred = "redis-7.0"

// readmeServer is the scoreboard as table.md shows it, and a line saying
// what it left out. README.md shows table.md and is held to 11,000
// characters (readmeLimit in cmd/lockcheck), so a page of several servers
// keeps table.md to one server's rows (readmePreferred if it is there,
// else the first) and links the page for the others.
func readmeServer(sb Scoreboard) (Scoreboard, string) {
	if len(sb.Servers) < 2 {
		return sb, ""
	}
	keep := sb.Servers[0]
	if slices.Contains(sb.Servers, readmePreferred) {
		keep = readmePreferred
	}
	one := sb
	one.Servers, one.Rows = nil, nil
	for _, r := range sb.Rows {
		if r.Server == keep {
			one.Rows = append(one.Rows, r)
		}
	}
	note := fmt.Sprintf("\nOn %s; [the page](%s) has a row per library on each of %s, and what differs between them.\n",
		keep, ScoreboardMarkdown, strings.Join(sb.Servers, ", "))
	return one, note
}

// writeDifferences writes, on a page of several servers, every verdict that
// differs between them, with each side's findings and histories.
func writeDifferences(w io.Writer, sb Scoreboard) {
	if len(sb.Servers) < 2 {
		return
	}
	fmt.Fprintf(w, "\n## Differs between servers\n\n")
	if n := len(sb.Uncompared); n > 0 {
		fmt.Fprintf(w, "Not compared, as no two servers gave a verdict (every cell but one server's errored, was skipped or decided nothing): %s.\n\n", strings.Join(sb.Uncompared, ", "))
	}
	if len(sb.Differences) == 0 {
		fmt.Fprintf(w, "None%s: every library scored the same on %s, property by property and scenario by scenario.\n",
			ifStr(len(sb.Uncompared) > 0, " among the rest"), strings.Join(sb.Servers, ", "))
		return
	}
	fmt.Fprintf(w, "A library's property under one scenario, scored over its seeds, that is not the same on every server:\n\n")
	for _, d := range sb.Differences {
		var sides []string
		for _, s := range d.Sides {
			sides = append(sides, fmt.Sprintf("%s: %s%s", s.Server, mdScore(s.Score), runLinks(s.Runs)))
		}
		fmt.Fprintf(w, "- %s, %s, %s: %s\n", d.Subject, d.Scenario, d.Property, strings.Join(sides, "; "))
	}
}

// runLinks links a side's histories (" (runs [1](dir) [2](dir))"); "" when
// none was kept.
func runLinks(dirs []string) string {
	var links []string
	for i, d := range dirs {
		if d != "" {
			links = append(links, fmt.Sprintf("[%d](%s)", i+1, d))
		}
	}
	if len(links) == 0 {
		return ""
	}
	return " (histories " + strings.Join(links, " ") + ")"
}
