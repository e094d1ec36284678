package results

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lockcheck/lockcheck/model"
)

// TestReadAllowances: a holds* cell recorded without the fault-allowance
// checker's allowances gets them from its run; a cell that has them, one
// that went beyond, and one whose run is not here are left as recorded.
func TestReadAllowances(t *testing.T) {
	dir := t.TempDir()
	lin, fa := model.CheckLinearizable, model.CheckAllowance
	ran := append(slices.Clone(baseCheckers), fa)
	cell := func(scenario string, bad ...string) MatrixCell {
		c := sbCell("lib", scenario, "partition/latency", false, 1, bad...)
		c.Checkers, c.Tolerated = verdicts(ran, bad...), []string{lin}
		return c
	}
	old, recorded, beyond, absent := cell("old", lin), cell("recorded", lin), cell("beyond", lin, fa), cell("absent", lin)
	recorded.Checkers[len(ran)-1].Allowed = []string{"as recorded (×1)"}
	for _, c := range []MatrixCell{old, recorded, beyond} {
		if err := os.MkdirAll(filepath.Join(dir, c.Dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.Dir, HistoryFile), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var read []string
	rep := Report{Rows: []ReportRow{{Cells: []MatrixCell{old, recorded, beyond, absent}}}}
	err := readAllowances(dir, &rep, func(run string) ([]string, error) {
		read = append(read, filepath.Base(filepath.Dir(run)))
		return []string{"proxy-blackhole c0 [0.5s, 3.5s] (×2)"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(read, []string{"old"}) {
		t.Errorf("runs read: %v, want only the old record's", read)
	}
	want := map[string][]string{"old": {"proxy-blackhole c0 [0.5s, 3.5s] (×2)"}, "recorded": {"as recorded (×1)"}, "beyond": nil, "absent": nil}
	for _, c := range rep.Rows[0].Cells {
		if got, _ := c.Checker(fa); !slices.Equal(got.Allowed, want[c.Scenario]) {
			t.Errorf("%s: allowed %v, want %v", c.Scenario, got.Allowed, want[c.Scenario])
		}
	}
}
