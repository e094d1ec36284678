package main

import (
	"fmt"
	"os"

	"github.com/lockcheck/lockcheck/workloads"
)

// loadPlanFile reads `run --plan FILE` (see workloads.DecodePlan). Its
// errors name the file and the problem.
func loadPlanFile(path string) (workloads.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return workloads.Plan{}, fmt.Errorf("--plan: %w", err)
	}
	p, err := workloads.DecodePlan(b)
	if err != nil {
		return workloads.Plan{}, fmt.Errorf("--plan %s: %w", path, err)
	}
	return p, nil
}

// planWorkload is the workload a run with --plan and no --workload is
// labelled with: the plan's own, when it names a workload ("" otherwise,
// and the default applies).
func (f *runFlags) planWorkload() string {
	if f.givenPlan == nil {
		return ""
	}
	if _, err := workloads.LookupWorkload(f.givenPlan.Workload); err != nil {
		return ""
	}
	return f.givenPlan.Workload
}
