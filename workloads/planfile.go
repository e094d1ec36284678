package workloads

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DecodePlan parses a plan file (such as the plan.json a hunt writes): one
// JSON Plan, with no unknown field and nothing after it, that passes
// Plan.Validate. Its errors say what is wrong.
func DecodePlan(b []byte) (Plan, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("not a JSON plan: %w", err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return p, fmt.Errorf("not a JSON plan: more than one JSON value")
	}
	if err := p.Validate(); err != nil {
		return p, err
	}
	return p, nil
}

// EncodePlan is the JSON of p as a plan file holds it (indented, a newline
// at the end); DecodePlan reads it back.
func EncodePlan(p Plan) ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
