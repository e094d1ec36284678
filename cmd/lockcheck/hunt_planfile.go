package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/lockcheck/lockcheck/workloads"
)

// loadPlanFile reads `run --plan FILE`: one JSON workloads.Plan, with no
// unknown field and nothing after it, that passes Plan.Validate. Its errors
// name the file and the problem.
func loadPlanFile(path string) (workloads.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return workloads.Plan{}, fmt.Errorf("--plan: %w", err)
	}
	p, err := decodePlan(b)
	if err != nil {
		return workloads.Plan{}, fmt.Errorf("--plan %s: %w", path, err)
	}
	return p, nil
}

// decodePlan parses and validates one JSON plan.
func decodePlan(b []byte) (workloads.Plan, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p workloads.Plan
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("not a JSON plan: %w", err)
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		return p, fmt.Errorf("not a JSON plan: more than one JSON value")
	}
	if err := p.Validate(); err != nil {
		return p, err
	}
	return p, nil
}

// encodePlan is the JSON of p as plan.json holds it (indented, newline
// at the end).
func encodePlan(p workloads.Plan) ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
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
