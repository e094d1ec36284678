package results

import (
	"testing"

	"github.com/lockcheck/lockcheck/model"
)

// On a semaphore's row, "mutual exclusion" is judged by the permits
// checker (no more permits held than the total); a lock's row is not.
func TestPivotPermitsMutualExclusion(t *testing.T) {
	ran := []string{model.CheckLinearizable, model.CheckConserved, model.CheckLiveness}
	over := MatrixCell{Scenario: "partition-short", Subject: "sem", Seed: 1, Safe: true, FaultClass: "partition/latency", Expected: "valid",
		Checkers: verdicts(ran, model.CheckConserved), Verdict: model.Invalid, Invalid: []string{model.CheckConserved}, Dir: "partition-short/sem-1"}
	fine := MatrixCell{Scenario: "no-faults", Subject: "sem", Seed: 1, Safe: true, FaultClass: "none", Expected: "valid", OK: true,
		Checkers: verdicts(ran), Verdict: model.Valid, Dir: "no-faults/sem-1"}
	rep := Report{Rows: []ReportRow{{Cells: []MatrixCell{fine, over}}}}
	for _, c := range []struct {
		kind      string
		none, net State
	}{
		{model.ObjectPermits, Holds, Unproven},
		{"external", NotChecked, NotChecked},
	} {
		sb := Pivot(rep, []SubjectInfo{{Name: "sem", Kind: c.kind}}, nil)
		g := sb.Rows[0].Grid["mutual exclusion"]
		if g["none"].State != c.none || g["partition/latency"].State != c.net {
			t.Errorf("kind %q: mutual exclusion none %s, partition %s; want %s, %s", c.kind, g["none"].State, g["partition/latency"].State, c.none, c.net)
		}
	}
}
