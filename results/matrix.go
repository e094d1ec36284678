package results

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// MatrixFileName is the JSON matrix every nightly run (or shard) writes
// beside matrix.md in its directory; `lockcheck report` merges these.
const MatrixFileName = "matrix.json"

// matrixVersion is MatrixFile.Version; a reader refuses any other.
const matrixVersion = 1

// MatrixFile is matrix.json: the cells one nightly run (the whole matrix or
// one shard of it) ran, with their verdicts and run directories.
type MatrixFile struct {
	Version int    `json:"version"`
	Title   string `json:"title"`
	// Shard is "I/N" for a shard, "" for the whole matrix.
	Shard   string    `json:"shard,omitempty"`
	Started time.Time `json:"started"`
	// Wall is how long the whole nightly run took.
	Wall time.Duration `json:"wall_ns"`
	// Interrupted is true when the run stopped early (Ctrl-C, SIGTERM):
	// its cells are a prefix of the shard.
	Interrupted bool `json:"interrupted,omitempty"`
	// InProgress is true in the copies written while the run goes on
	// (after each cell), false in the last one.
	InProgress bool `json:"in_progress,omitempty"`
	// Kind is "scoreboard" for a scoreboard run, "" for a nightly one.
	Kind string `json:"kind,omitempty"`
	// Server is the server and backend every cell ran on
	// ("valkey-8.1 (valkey-server 8.1.8), backend process"); "" in
	// matrices from before --server.
	Server string `json:"server,omitempty"`
	// SeedBase is what the seeds were counted from (seed = SeedBase + i,
	// i = 1..N).
	SeedBase int64 `json:"seed_base,omitempty"`
	// Duration and CheckTimeout are the run flags every cell ran with (0:
	// the scenario's duration, the default check timeout): a cell's
	// Command repeats them.
	Duration     time.Duration `json:"duration_ns,omitempty"`
	CheckTimeout time.Duration `json:"check_timeout_ns,omitempty"`
	// Subjects describes the subjects the run covered: library, version
	// and what each claims.
	Subjects []SubjectInfo `json:"subjects,omitempty"`
	// Scenarios describes the scenarios the run covered.
	Scenarios []ScenarioInfo `json:"scenarios,omitempty"`
	Cells     []MatrixCell   `json:"cells"`
}

// ScenarioInfo is what a matrix records of one scenario.
type ScenarioInfo struct {
	Name       string `json:"name"`
	Safe       bool   `json:"safe"`
	Doc        string `json:"doc,omitempty"`
	FaultClass string `json:"fault_class,omitempty"`
}

// SubjectInfo is what a matrix records of one subject: the library it
// runs, its version and its claims.
type SubjectInfo struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Doc  string `json:"doc,omitempty"`
	// Library names what the subject runs (a driver's banner name, a Go
	// module's path); Version its version ("" when unknown, with
	// VersionError saying why).
	Library      string `json:"library,omitempty"`
	Version      string `json:"version,omitempty"`
	VersionError string `json:"version_error,omitempty"`
	// Claims are what the lock says it has: ClaimReentrant, ClaimFair,
	// ClaimFenced, ClaimWatchdog.
	Claims []string `json:"claims,omitempty"`
}

// Claims a subject can make (SubjectInfo.Claims).
const (
	ClaimReentrant = "reentrant"
	ClaimFair      = "fair"
	ClaimFenced    = "fenced"
	ClaimWatchdog  = "watchdog"
)

// Has reports whether the subject claims c.
func (s SubjectInfo) Has(c string) bool { return slices.Contains(s.Claims, c) }

// CheckerVerdict is one checker's verdict in a cell.
type CheckerVerdict struct {
	Checker string        `json:"checker"`
	Verdict model.Verdict `json:"verdict"`
	Class   model.Class   `json:"class,omitempty"`
	// Count is the number of violations found.
	Count int `json:"count,omitempty"`
	// Unexplained is true when an example of an Invalid verdict is one no
	// lease expiry and no lossy fault explains (the checker's cause says
	// "implementation bug"). Shown, not scored (see MatrixCell.Findings).
	Unexplained bool `json:"unexplained,omitempty"`
	// Example is the first violation, rendered: its ops, the fault
	// windows that overlap them and the cause ("" when valid).
	Example string `json:"example,omitempty"`
	// AllowedBy names what allows the first violation, when something
	// does (model.Example.AllowedBy: a fault window, a lease).
	AllowedBy string `json:"allowed_by,omitempty"`
	// Allowed is, for the fault-allowance checker, what allowed the
	// anomalies it allowed (model.Result.Allowed).
	Allowed []string `json:"allowed,omitempty"`
}

// Rerun is one more run of a cell from its Command, to check a finding.
type Rerun struct {
	Verdict model.Verdict `json:"verdict,omitempty"`
	Invalid []string      `json:"invalid,omitempty"`
	// Checkers are the rerun's verdicts, as in MatrixCell.
	Checkers []CheckerVerdict `json:"checkers,omitempty"`
	Error    string           `json:"error,omitempty"`
	// Dir is the rerun's directory, relative as MatrixCell.Dir.
	Dir  string        `json:"dir,omitempty"`
	Wall time.Duration `json:"wall_ns"`
}

// MatrixCell is one scenario × subject × seed.
type MatrixCell struct {
	Scenario string `json:"scenario"`
	Subject  string `json:"subject"`
	Seed     int64  `json:"seed"`
	// Safe is the scenario's kind: a safe scenario must pass, an unsafe one
	// must be detected.
	Safe bool `json:"safe"`
	// Expected is the expectation's label ("valid", "detected", ...).
	Expected string `json:"expected"`
	// Informational is true when the expectation requires nothing (a
	// mutant on a safe scenario): its verdict is shown, never counted as a
	// false positive or a miss.
	Informational bool `json:"informational,omitempty"`
	// Skip says why the cell was not run ("" when it ran).
	Skip    string        `json:"skip,omitempty"`
	Verdict model.Verdict `json:"verdict,omitempty"`
	// Invalid lists the checkers that said invalid.
	Invalid []string `json:"invalid,omitempty"`
	// Class is what the worst violation broke (model.Report.Class).
	Class model.Class `json:"class,omitempty"`
	// Beyond says some anomaly went beyond every fault's allowance
	// (model.Report.Beyond): broken beyond what the scenario's fault
	// implies, a finding even on an unsafe scenario. Invalid without it
	// is "broken, allowed by the fault".
	Beyond bool `json:"beyond,omitempty"`
	// OK says the verdict met the expectation (skipped cells are OK).
	OK bool `json:"ok"`
	// Why says how it did not, or why it was skipped.
	Why string `json:"why,omitempty"`
	// Error is an infrastructure error: the run is no verdict.
	Error string `json:"error,omitempty"`
	// Dir is the run directory, relative to the directory of the
	// matrix.json that lists the cell ("" when none was written).
	Dir string `json:"dir,omitempty"`
	// Wall is how long the cell took: start-up, run and check.
	Wall time.Duration `json:"wall_ns"`
	// FirstDetection is when, from the run's start, the first violation
	// was complete (see FirstViolation); 0 when none was found.
	FirstDetection time.Duration `json:"first_detection_ns,omitempty"`
	// FaultClass groups the scenario with others that break the same way
	// (FaultNone, FaultNetwork, ...).
	FaultClass string `json:"fault_class,omitempty"`
	// Checkers are every checker's verdict.
	Checkers []CheckerVerdict `json:"checkers,omitempty"`
	// Owners are the checkers the expectation requires to say Invalid
	// (an unsafe scenario's detection needs every one of them).
	Owners []string `json:"owners,omitempty"`
	// Tolerated are the checkers whose Invalid verdict the expectation
	// accepts: the property an unsafe scenario breaks in any lease lock.
	Tolerated []string `json:"tolerated,omitempty"`
	// Signatures are the distinct signatures of the run's violations
	// (model.Report.Signatures): what a library-alone script's bug is
	// matched by (KnownFinding).
	Signatures []model.Signature `json:"signatures,omitempty"`
	// Command is the `lockcheck run` line that reruns the cell.
	Command string `json:"command,omitempty"`
	// Reruns are the runs of Command made to check a finding.
	Reruns []Rerun `json:"reruns,omitempty"`
	// Server is the server and backend the cell ran on (MatrixFile.Server;
	// merged reports stamp it from the file): cells of one scenario ×
	// subject × seed on two servers are two cells.
	Server string `json:"server,omitempty"`
}

// Key names the cell: scenario/subject/seed.
func (c MatrixCell) Key() string { return fmt.Sprintf("%s/%s/%d", c.Scenario, c.Subject, c.Seed) }

// Detected reports whether the cell ran, its verdict is invalid and every
// checker its expectation requires to fire (Owners) did: a cell made
// invalid only by a bystander did not detect what the scenario breaks.
func (c MatrixCell) Detected() bool {
	if c.Error != "" || c.Skip != "" || c.Verdict != model.Invalid {
		return false
	}
	for _, o := range c.Owners {
		if !slices.Contains(c.Invalid, o) {
			return false
		}
	}
	return true
}

// FirstViolation returns the earliest time into the run at which a violation
// that a checker reported invalid was complete: for each example, the
// latest return among its ops; the least over all examples. ok is false
// when no invalid result carries an op.
func FirstViolation(rep model.Report) (at time.Duration, ok bool) {
	for _, r := range rep.Results {
		if r.Verdict != model.Invalid {
			continue
		}
		for _, e := range r.Examples {
			var last int64
			for _, op := range e.Ops {
				last = max(last, op.Return, op.Call)
			}
			if len(e.Ops) > 0 && (!ok || time.Duration(last) < at) {
				at, ok = time.Duration(last), true
			}
		}
	}
	return at, ok
}

// WriteMatrixJSON writes m as indented JSON, with its version set.
func WriteMatrixJSON(w io.Writer, m MatrixFile) error {
	m.Version = matrixVersion
	if m.Cells == nil {
		m.Cells = []MatrixCell{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// LoadMatrix reads a matrix.json, naming the file in every error.
func LoadMatrix(path string) (MatrixFile, error) {
	var m MatrixFile
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: not a lockcheck matrix: %v", path, err)
	}
	if m.Version != matrixVersion {
		return m, fmt.Errorf("%s: matrix version %d, this lockcheck reads version %d", path, m.Version, matrixVersion)
	}
	return m, nil
}
