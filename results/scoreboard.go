package results

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lockcheck/lockcheck/model"
)

// A Property is a scoreboard column: what a lock promises, judged by one
// checker, and the claim without which it is not promised ("" : every lock).
type Property struct {
	Name    string
	Checker string
	Claim   string
}

// Properties are the scoreboard's property columns, in order.
var Properties = []Property{
	{"mutual exclusion", model.CheckMutualExclusion, ""},
	{"linearizable", model.CheckLinearizable, ""},
	{"fencing", model.CheckFencing, ClaimFenced},
	{"FIFO", model.CheckFairness, ClaimFair},
	{"liveness", model.CheckLiveness, ""},
	{"contract", model.CheckContract, ""},
	// A break beyond what the faults allow any lease lock: the one property
	// an unsafe scenario never excuses.
	{"within the fault", model.CheckAllowance, ""},
}

// of is p as it is judged for si: "mutual exclusion" is judged by the
// checker of the exclusion si's object kind promises
// (model.ExclusionChecker: on a semaphore or latch, that no more permits
// are held than the total).
func (p Property) of(si SubjectInfo) Property {
	if p.Checker == model.CheckMutualExclusion {
		p.Checker = model.ExclusionChecker(si.Kind)
	}
	return p
}

// FaultOrder is the column order of the fault classes (the scenario
// package's classes); others follow by name.
var FaultOrder = []string{"none", "partition/latency", "process pause/crash", "restart/persistence", "failover/Sentinel", "clock", "other"}

// State is what a scoreboard cell says, from the best to the worst news.
type State string

// Scoreboard cell states.
const (
	NotClaimed State = "not claimed"
	NotRun     State = "not run"
	NotChecked State = "not checked"
	Holds      State = "holds"
	Expected   State = "expected" // broke only where any lease lock must
	Unknown    State = "unknown"  // a checker ran out of time
	Errored    State = "error"    // a cell could not run
	Unproven   State = "unproven" // broke, not rerun (or every rerun errored)
	Flaky      State = "flaky"    // broke, some reruns did not
	// Reproduced: broke, every rerun too, but no script shows the library
	// breaking alone (KnownFindings): the adapter is not ruled out, so
	// the cell does not say broken.
	Reproduced State = "reproduced"
	Broken     State = "broken" // broke, every rerun too, and a library-alone script shows it
)

// Class is the state as a CSS class ("not-claimed").
func (s State) Class() string { return strings.ReplaceAll(string(s), " ", "-") }

// stateRank orders states for a cell that covers several runs: the worst
// news wins.
var stateRank = map[State]int{NotClaimed: 0, NotRun: 1, NotChecked: 2, Holds: 3, Expected: 4, Unknown: 5, Errored: 6, Unproven: 7, Flaky: 8, Reproduced: 9, Broken: 10}

// Score is one scoreboard cell: a subject's property under a fault class
// (or across them, or every property under one).
type Score struct {
	State State `json:"state"`
	// Scenarios are those that gave the state (the breaking ones for
	// broken, flaky, unproven, expected).
	Scenarios []string `json:"scenarios,omitempty"`
	// Why says why a cell was not run or is not claimed.
	Why string `json:"why,omitempty"`
	// Hits and Runs: for a finding, the runs (original and reruns) that
	// broke the property, of those that gave a verdict.
	Hits int `json:"hits,omitempty"`
	Runs int `json:"runs,omitempty"`
	// Findings are the keys of the findings behind the cell.
	Findings []string `json:"findings,omitempty"`
	// Allowances are, for an expected break (holds*), what allowed it:
	// the first run of each scenario that broke the property, with the
	// fault window or lease the checker named.
	Allowances []Allowance `json:"allowances,omitempty"`
}

// Allowance is the evidence behind a "holds*" cell: a run in which the
// property broke, and what the checker found allowed it.
type Allowance struct {
	Scenario  string `json:"scenario"`
	Seed      int64  `json:"seed"`
	AllowedBy string `json:"allowed_by,omitempty"` // "" : the checker named nothing
	// Within is what the fault-allowance checker found allowed the run's
	// anomalies (CheckerVerdict.Allowed of model.CheckAllowance): the
	// evidence that nothing went beyond the faults. Judged says that
	// checker ran (it does not on every object kind).
	Within []string `json:"within,omitempty"`
	Judged bool     `json:"judged,omitempty"`
	// Command reruns the run (its history is not kept: a page keeps the
	// histories of findings only).
	Command string `json:"command,omitempty"`
}

// merge folds o into s: the worse state wins; equal states pool their
// scenarios and counts.
func (s Score) merge(o Score) Score {
	switch rs, ro := stateRank[s.State], stateRank[o.State]; {
	case s.State == "" || ro > rs:
		return o
	case ro < rs:
		return s
	}
	for _, sc := range o.Scenarios {
		if !slices.Contains(s.Scenarios, sc) {
			s.Scenarios = append(s.Scenarios, sc)
		}
	}
	for _, f := range o.Findings {
		if !slices.Contains(s.Findings, f) {
			s.Findings = append(s.Findings, f)
		}
	}
	for _, a := range o.Allowances {
		if !slices.ContainsFunc(s.Allowances, func(b Allowance) bool { return b.Scenario == a.Scenario }) {
			s.Allowances = append(s.Allowances, a)
		}
	}
	s.Hits += o.Hits
	s.Runs += o.Runs
	if s.Why == "" {
		s.Why = o.Why
	}
	return s
}

// Finding is one property a library broke under one scenario, over the
// seeds that broke it, with what shows it.
type Finding struct {
	Key     string `json:"key"`
	Subject string `json:"subject"`
	// Server is the server's label on a page of several servers ("" on a
	// page of one).
	Server   string `json:"server,omitempty"`
	Property string `json:"property"`
	Checker  string `json:"checker"`
	Scenario string `json:"scenario"`
	Fault    string `json:"fault_class"`
	State    State  `json:"state"`
	// Runs are the seeds that broke it.
	Runs []FindingRun `json:"runs"`
	// Known is the library-alone script that rules the adapter out, if
	// one exists.
	Known *KnownFinding `json:"known,omitempty"`
}

// FindingRun is one seed of a finding: its command, its history and its
// reruns.
type FindingRun struct {
	Seed    int64    `json:"seed"`
	Command string   `json:"command"`
	Dir     string   `json:"dir,omitempty"`
	Reruns  []string `json:"reruns,omitempty"` // their directories
	Hits    int      `json:"hits"`
	Runs    int      `json:"runs"`
	Example string   `json:"example,omitempty"`
	Class   string   `json:"class,omitempty"`
	// Beyond says the run went beyond every fault's allowance (the
	// fault-allowance checker fired: MatrixCell.Beyond); else the break
	// is one the scenario's faults allow, by AllowedBy when named.
	Beyond    bool   `json:"beyond,omitempty"`
	AllowedBy string `json:"allowed_by,omitempty"`
}

// ScoreRow is one library: its property columns, its fault-class columns
// and the grid of both.
type ScoreRow struct {
	Subject SubjectInfo `json:"subject"`
	// Server is the server's label on a page of several servers (a row
	// per library × server); "" on a page of one.
	Server   string                      `json:"server,omitempty"`
	Property map[string]Score            `json:"property"`
	Fault    map[string]Score            `json:"fault"`
	Grid     map[string]map[string]Score `json:"grid"` // property, then fault class
	Cells    int                         `json:"cells"`
}

// Scoreboard is the pivot of merged scoreboard matrices: one row per
// library and version.
type Scoreboard struct {
	Faults   []string   `json:"faults"`
	Rows     []ScoreRow `json:"rows"`
	Findings []Finding  `json:"findings"`
	Seeds    []int64    `json:"seeds"`
	// Servers are the labels of the servers, when the cells cover more
	// than one (then Rows are per library × server); Differences are the
	// verdicts that differ between them.
	Servers     []string           `json:"servers,omitempty"`
	Differences []ServerDifference `json:"differences,omitempty"`
	// Uncompared are the library × scenario pairs no two servers gave a
	// verdict on ("redisson under no-faults").
	Uncompared []string `json:"uncompared,omitempty"`
}

// Pivot builds the scoreboard of rep's cells, one row per subject by name
// (described by subjects; a subject without a SubjectInfo gets a bare
// one). known maps findings to library-alone scripts.
func Pivot(rep Report, subjects []SubjectInfo, known []KnownFinding) Scoreboard {
	sb := Scoreboard{}
	if servers := reportServers(rep); len(servers) > 1 {
		sb.Servers = servers
	}
	bySubject := map[string][]MatrixCell{}
	faults := map[string]bool{}
	seeds := map[int64]bool{}
	for _, row := range rep.Rows {
		for _, c := range row.Cells {
			bySubject[c.Subject] = append(bySubject[c.Subject], c)
			faults[faultOf(c)] = true
			seeds[c.Seed] = true
		}
	}
	sb.Faults = orderFaults(faults)
	for s := range seeds {
		sb.Seeds = append(sb.Seeds, s)
	}
	slices.Sort(sb.Seeds)
	infos := slices.Clone(subjects)
	var extra []string
	for name := range bySubject {
		if !slices.ContainsFunc(infos, func(si SubjectInfo) bool { return si.Name == name }) {
			extra = append(extra, name)
		}
	}
	for _, name := range extra {
		infos = append(infos, SubjectInfo{Name: name})
	}
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	findings := map[string]*Finding{}
	for _, si := range infos {
		for _, srv := range serverGroups(bySubject[si.Name], sb.Servers) {
			row := scoreRow(si, srv.label, srv.cells, sb.Faults, findings, known)
			sb.Rows = append(sb.Rows, row)
		}
	}
	sb.Differences, sb.Uncompared = serverDifferences(bySubject, infos, sb.Servers, known)
	for _, f := range findings {
		sb.Findings = append(sb.Findings, *f)
	}
	sort.Slice(sb.Findings, func(i, j int) bool { return sb.Findings[i].Key < sb.Findings[j].Key })
	return sb
}

func faultOf(c MatrixCell) string {
	if c.FaultClass == "" {
		return "other"
	}
	return c.FaultClass
}

func orderFaults(have map[string]bool) []string {
	var out, extra []string
	for _, f := range FaultOrder {
		if have[f] {
			out = append(out, f)
		}
	}
	for f := range have {
		if !slices.Contains(FaultOrder, f) {
			extra = append(extra, f)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// scoreRow scores one subject's cells.
func scoreRow(si SubjectInfo, server string, cells []MatrixCell, faults []string, findings map[string]*Finding, known []KnownFinding) ScoreRow {
	row := ScoreRow{Subject: si, Server: server, Property: map[string]Score{}, Fault: map[string]Score{}, Grid: map[string]map[string]Score{}, Cells: len(cells)}
	for _, p := range Properties {
		p = p.of(si)
		row.Grid[p.Name] = map[string]Score{}
		for _, c := range cells {
			q := judgedAs(p, c)
			s := scoredCell(si, server, q, c, known)
			if len(s.Findings) > 0 {
				addFinding(findings, si, server, q, c, known)
			}
			f := faultOf(c)
			row.Grid[p.Name][f] = row.Grid[p.Name][f].merge(s)
		}
	}
	for _, p := range Properties {
		for _, f := range faults {
			g, ok := row.Grid[p.Name][f]
			if !ok {
				continue
			}
			row.Property[p.Name] = row.Property[p.Name].merge(g)
			if g.State != NotClaimed {
				row.Fault[f] = row.Fault[f].merge(g)
			}
		}
	}
	return row
}

// judgedAs is the property c's break of p is judged as: p, except for a
// break the scenario tolerates in a run that went beyond its faults. That
// break is not one any lease lock must make: it is judged as the run's
// fault-allowance finding (the same finding, its reruns and its script).
func judgedAs(p Property, c MatrixCell) Property {
	cv, ok := c.Checker(p.Checker)
	if !ok || cv.Verdict != model.Invalid || !c.Beyond || p.Checker == model.CheckAllowance ||
		!slices.Contains(c.Tolerated, p.Checker) || !slices.Contains(c.Findings(), model.CheckAllowance) {
		return p
	}
	for _, q := range Properties {
		if q.Checker == model.CheckAllowance {
			return q
		}
	}
	return p
}

// scoredCell is cellScore with the key of its finding, if it is one, and
// broken said reproduced where no script shows the library alone.
func scoredCell(si SubjectInfo, server string, p Property, c MatrixCell, known []KnownFinding) Score {
	s := cellScore(si, p, c)
	if s.State == Broken || s.State == Flaky || s.State == Unproven {
		s.Findings = []string{findingKey(si.Name, c.Scenario, p.Checker, server)}
	}
	if s.State == Broken && lookupKnown(known, si.Name, p.Checker, c.Signatures) == nil {
		s.State = Reproduced
	}
	return s
}

// findingKey names a finding: subject/scenario/checker, and " on server"
// on a page of several servers.
func findingKey(subject, scenario, checker, server string) string {
	key := fmt.Sprintf("%s/%s/%s", subject, scenario, checker)
	if server != "" {
		key += " on " + server
	}
	return key
}

// cellScore is what one run says of property p.
func cellScore(si SubjectInfo, p Property, c MatrixCell) Score {
	sc := []string{c.Scenario}
	switch {
	case p.Claim != "" && !si.Has(p.Claim):
		return Score{State: NotClaimed, Why: "the lock does not claim " + p.Claim}
	case c.Skip != "":
		return Score{State: NotRun, Scenarios: sc, Why: c.Skip}
	case c.Error != "":
		return Score{State: Errored, Scenarios: sc, Why: c.Error}
	}
	cv, ok := c.Checker(p.Checker)
	wf, _ := c.Checker(model.CheckWellFormed)
	switch {
	case !ok:
		return Score{State: NotChecked, Scenarios: sc}
	case cv.Verdict == model.Valid && wf.Verdict == model.Unknown:
		// Nothing was exercised (no grant): no property holds by it.
		return Score{State: Unknown, Scenarios: sc, Why: "the run decided nothing (" + model.CheckWellFormed + " unknown)"}
	case cv.Verdict == model.Valid:
		return Score{State: Holds, Scenarios: sc}
	case cv.Verdict != model.Invalid:
		return Score{State: Unknown, Scenarios: sc}
	case !slices.Contains(c.Findings(), p.Checker):
		fa, judged := c.Checker(model.CheckAllowance)
		return Score{State: Expected, Scenarios: sc, Allowances: []Allowance{{Scenario: c.Scenario, Seed: c.Seed, AllowedBy: cv.AllowedBy, Within: fa.Allowed, Judged: judged, Command: c.Command}}}
	}
	same, ran := c.Reproduced(p.Checker)
	s := Score{Scenarios: sc, Hits: 1 + same, Runs: 1 + ran}
	switch {
	case ran == 0:
		s.State = Unproven
	case same < ran:
		s.State = Flaky
	default:
		s.State = Broken
	}
	return s
}

// addFinding records c's break of p in findings.
func addFinding(findings map[string]*Finding, si SubjectInfo, server string, p Property, c MatrixCell, known []KnownFinding) {
	key := findingKey(si.Name, c.Scenario, p.Checker, server)
	f := findings[key]
	if f == nil {
		f = &Finding{Key: key, Subject: si.Name, Server: server, Property: p.Name, Checker: p.Checker, Scenario: c.Scenario, Fault: faultOf(c)}
		findings[key] = f
	}
	if f.Known == nil {
		f.Known = lookupKnown(known, si.Name, p.Checker, c.Signatures)
	}
	if slices.ContainsFunc(f.Runs, func(r FindingRun) bool { return r.Command == c.Command && r.Dir == c.Dir }) {
		return // met again through another property's break (judgedAs)
	}
	same, ran := c.Reproduced(p.Checker)
	run := FindingRun{Seed: c.Seed, Command: c.Command, Dir: c.Dir, Hits: 1 + same, Runs: 1 + ran, Example: c.ExampleOf(p.Checker), Beyond: c.Beyond}
	if cv, ok := c.Checker(p.Checker); ok {
		run.Class, run.AllowedBy = string(cv.Class), cv.AllowedBy
	}
	for _, r := range c.Reruns {
		run.Reruns = append(run.Reruns, r.Dir)
	}
	f.Runs = append(f.Runs, run)
	f.State = findingState(f.Runs)
	if f.State == Broken && f.Known == nil {
		f.State = Reproduced
	}
}

// Class is the class of the finding's first run's violation ("" if
// unknown).
func (f Finding) Class() string {
	if len(f.Runs) == 0 {
		return ""
	}
	return f.Runs[0].Class
}

// findingState is broken when some seed broke in every run (original and
// at least one rerun), flaky when some broke again but not every time,
// unproven when no seed was rerun.
func findingState(runs []FindingRun) State {
	st := Unproven
	for _, r := range runs {
		switch {
		case r.Runs > 1 && r.Hits == r.Runs:
			return Broken
		case r.Runs > 1:
			st = Flaky
		}
	}
	return st
}

// KnownFinding ties a finding (a subject's checker) to a script that shows
// it against the library alone, with no lockcheck and no adapter.
type KnownFinding struct {
	Subject string `json:"subject"`
	Checker string `json:"checker"`
	Script  string `json:"script"`
	Claim   string `json:"claim"`
	// Signatures are those of the violations the script shows (its bug's,
	// KnownRepro): a run is shown by the script only when one of its
	// violations has one of them. None: any run of the subject's checker.
	Signatures []model.Signature `json:"signatures,omitempty"`
}

// lookupKnown returns the script that shows a break of subject's checker
// in a run whose violations have signatures sigs, if any.
func lookupKnown(known []KnownFinding, subject, checker string, sigs []model.Signature) *KnownFinding {
	for _, k := range known {
		if k.Subject == subject && k.Checker == checker && k.shows(sigs) {
			return &k
		}
	}
	return nil
}

// shows says one of sigs is one of k's signatures (any, when k names none).
func (k KnownFinding) shows(sigs []model.Signature) bool {
	if len(k.Signatures) == 0 {
		return true
	}
	return slices.ContainsFunc(k.Signatures, func(s model.Signature) bool { return s.MatchesAny(sigs) })
}

// Text renders a score in a few words: "holds", "broken by X, Y",
// "flaky: 1 of 2 (X)", "not claimed", "not run: why".
func (s Score) Text() string {
	scs := strings.Join(s.Scenarios, ", ")
	switch s.State {
	case "":
		return "-"
	case Broken:
		return "broken by " + scs
	case Reproduced:
		return "reproduced under " + scs + " (adapter not ruled out)"
	case Flaky:
		if s.Runs == 0 {
			return "flaky (" + scs + ")"
		}
		return fmt.Sprintf("flaky: %d of %d (%s)", s.Hits, s.Runs, scs)
	case Unproven:
		return "broke once, not rerun (" + scs + ")"
	case Expected:
		return "holds; expected break under " + scs
	case NotRun:
		return "not run: " + s.Why
	case Errored:
		return "error (" + scs + ")"
	}
	return string(s.State)
}

// Glance is Text at a glance, for the README's table: "holds*" for an
// expected break (any lease lock breaks there), "–" for not claimed, "not
// run" without its reason; findings as Text says them.
func (s Score) Glance() string {
	switch s.State {
	case Expected:
		return "holds*"
	case NotClaimed:
		return "–"
	case NotRun:
		return "not run"
	}
	return s.Text()
}

// Word is the score in a word or two, for the README's table: a finding's
// state in bold, no scenarios, no links.
func (s Score) Word() string {
	switch s.State {
	case Broken, Reproduced, Flaky:
		return "**" + string(s.State) + "**"
	case Unproven:
		return "**broke once**"
	}
	return s.Glance()
}

// Short is Text for the summary tables: an expected break under more than
// two scenarios is counted rather than listed (the library's grid lists
// them).
func (s Score) Short() string {
	if s.State == Expected && len(s.Scenarios) > 2 {
		return fmt.Sprintf("holds; expected break under %d unsafe scenarios", len(s.Scenarios))
	}
	return s.Text()
}
