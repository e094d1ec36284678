package bench

import (
	"time"
)

// Report is the outcome of one Run. Rates are medians over rounds; latencies,
// counts and shares pool every round.
type Report struct {
	Started time.Time     // when Run started (UTC)
	Elapsed time.Duration // Run's wall-clock time
	Machine Machine
	Mode    string        // "quick" or "full"
	Rounds  int           // interleaved rounds
	Window  time.Duration // measuring window of one cell of one subject per round
	Lease   time.Duration // lease of every Lock (0: watchdog)
	// Wire says every subject was measured twice in the same rounds:
	// direct, and as its twin named with WireSuffix, each client through a
	// traced faults.Wire (Config.Wire; WireRatios).
	Wire bool `json:",omitempty"`

	Subjects    []SubjectInfo // in table order
	Ceiling     []CeilingRow  // by worker count
	Uncontended []Row         // by worker count, then subject
	Contended   []Row         // by worker count, then subject
	// Threads says each cell's workers were threads of one client process
	// (Config.Threads); Notes say which cells have no row, and why.
	Threads bool
	Notes   []string `json:",omitempty"`
}

// Machine describes where the report was measured.
type Machine struct {
	OS, Arch     string
	CPUs         int    // runtime.NumCPU
	CPU          string // model name, when known
	GoVersion    string
	RedisVersion string
	// Commit is lockcheck's commit that measured (results.BuildCommit; ""
	// when the binary records none).
	Commit string `json:",omitempty"`
}

// SubjectInfo is a measured subject's description.
type SubjectInfo struct {
	Name string
	Doc  string
	Fair bool
}

// CeilingRow is the no-op script's rate at one worker count.
type CeilingRow struct {
	Workers     int
	PerRound    []float64 // calls/s of each round
	CallsPerSec float64   // median of PerRound
	Errors      int64
	// Server is the server's own cost of the ceiling's windows,
	// ServerUsecPerCall its main-thread CPU µs per no-op call (see
	// ServerCost); zero when not measured.
	Server            ServerCost
	ServerUsecPerCall float64
}

// CycleCeiling is the cycle rate one Redis allows at this worker count: a
// lock/unlock cycle needs at least two round trips.
func (c CeilingRow) CycleCeiling() float64 { return c.CallsPerSec / 2 }

// Row is one subject in one cell.
type Row struct {
	Subject      string
	Workers      int
	PerRound     []float64 // cycles/s of each round
	CyclesPerSec float64   // median of PerRound
	// OfCeiling is CyclesPerSec / (ceiling calls/s at Workers / 2); 0 when
	// the ceiling was not measured.
	OfCeiling float64
	// ServerUsecPerCycle is the server's main-thread CPU µs per cycle and
	// ScriptUsecPerCycle its scripts' execution µs per cycle (INFO
	// commandstats), pooled over rounds; Server holds the counts (see
	// ServerCost). OfServerLimit is CyclesPerSec as a share of the cycles/s
	// one Redis core could serve at that CPU cost
	// (ServerLimit(ServerUsecPerCycle)). Zero when not measured.
	ServerUsecPerCycle float64
	ScriptUsecPerCycle float64
	OfServerLimit      float64
	Server             ServerCost
	ServerCycles       int64 // cycles of the windows the server's cost covers
	Cycles             int64 // cycles completed inside the windows, all rounds
	Errors             int64 // failed Lock (other than the window's end) and Unlock calls
	FirstError         string

	// Contended cells only.
	Contention *Contention `json:",omitempty"`
}

// Contention is what a contended cell shows beyond throughput.
type Contention struct {
	// OwnerChange is the share of grants (after each window's first) that went
	// to a different worker than the previous holder, in [0, 1].
	OwnerChange float64
	// Handoffs counts grants to a different worker that had called Lock before
	// the previous holder called Unlock; HandoffP50/P99 are the times from
	// that Unlock call to the grant.
	Handoffs               int64
	HandoffP50, HandoffP99 time.Duration
	// Workers holds every worker's acquire waits (Lock call to grant; a
	// request still waiting when a window ended counts its wait so far).
	Workers []WorkerWaits
	// WaitP50 is the median of the workers' p50s, WaitP99 the worst worker's
	// p99, MaxWait the slowest worker's max: the starvation figure.
	WaitP50, WaitP99, MaxWait time.Duration
	// WaitCDF is every worker's acquire waits pooled: the wait at each of
	// CDFQuantiles, for the wait-time CDF.
	WaitCDF []WaitQuantile `json:",omitempty"`
	// Overtakes counts grants that went past a request surely waiting since
	// before they were requested (for an impl.Enqueuer lock: enqueued; for
	// others: Lock called). A FIFO lock has none without faults.
	Overtakes int64
}

// WaitQuantile is one point of a wait-time CDF: Q percent of the waits
// took at most Wait.
type WaitQuantile struct {
	Q    float64
	Wait time.Duration
}

// CDFQuantiles are the percentiles of Contention.WaitCDF.
var CDFQuantiles = []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.9, 100}

// WorkerWaits is one worker's acquire waits in a contended cell.
type WorkerWaits struct {
	Grants        int64
	P50, P99, Max time.Duration
}

// ceiling returns the ceiling row for n workers, if measured.
func (r *Report) ceiling(n int) (CeilingRow, bool) {
	for _, c := range r.Ceiling {
		if c.Workers == n {
			return c, true
		}
	}
	return CeilingRow{}, false
}

// Row returns the row of subject at n workers, contended or not.
func (r *Report) Row(contended bool, subject string, n int) (Row, bool) {
	rows := r.Uncontended
	if contended {
		rows = r.Contended
	}
	for _, row := range rows {
		if row.Subject == subject && row.Workers == n {
			return row, true
		}
	}
	return Row{}, false
}
