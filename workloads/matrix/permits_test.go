package matrix

import (
	"os"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// A latch's cell runs in the permits runner under the scenario's faults,
// into the cell's key, and a correct latch's is valid (a latch: no
// handover round, a short run).
func TestScenarioExecutorRunsPermits(t *testing.T) {
	sc, err := scenario.Lookup("partition-short")
	if err != nil {
		t.Fatal(err)
	}
	subj, ok := permits.Named("latch")
	if !ok {
		t.Fatal("latch is not a permits subject")
	}
	x := ScenarioExecutor{Dir: t.TempDir(), Duration: 2 * time.Second}
	c := scenario.Cell{Scenario: sc, Subject: subj, Seed: 1}
	ran, err := x.Exec(t.Context(), c, CellKey(c, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !ran.Recorded || ran.Report.Verdict != model.Valid {
		t.Fatalf("recorded %v, verdict %s:\n%s", ran.Recorded, ran.Report.Verdict, ran.Report)
	}
	h, err := model.ReadFile(CellKey(c, 0).In(x.Dir) + string(os.PathSeparator) + "history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Faults) == 0 || h.Header.Meta["scenario"] != sc.Name {
		t.Fatalf("faults %v, scenario %q: want the scenario's faults", h.Faults, h.Header.Meta["scenario"])
	}
}
