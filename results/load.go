package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lockcheck/lockcheck/model"
)

// Errors of LoadRun and Run.DecodeConfig; compare with errors.Is.
var (
	// ErrNoRun: the path does not exist or is not a directory.
	ErrNoRun = errors.New("results: no run directory")
	// ErrNoHistory: the directory has no history.jsonl, or it holds no
	// ops (a run that decided nothing).
	ErrNoHistory = errors.New("results: run directory has no history")
	// ErrNoConfig: the run directory has no config.json.
	ErrNoConfig = errors.New("results: run directory has no config")
	// ErrCorrupt: config.json, history.jsonl or result.json cannot be
	// parsed, or the history is not one a run can record. For
	// history.jsonl the error also wraps model.ErrMalformed (a line, named
	// by number) or model.ErrInvalid (see model.History.Validate).
	ErrCorrupt = errors.New("results: corrupt run file")
)

// Run is a run directory read back by LoadRun.
type Run struct {
	// Dir is the directory.
	Dir string
	// Config is config.json verbatim; nil when the run has none (a run
	// that crashed before writing it). See DecodeConfig.
	Config json.RawMessage
	// History is history.jsonl. A last line the run left incomplete is
	// dropped and reported in History.Truncated.
	History *model.History
	// Result is the result.json the run wrote, nil if it has none (the run
	// crashed before it was checked).
	Result *Summary
	// Expect is the expectation the run recorded (expect.json), nil for a
	// run that had none (not a scenario's).
	Expect *Expectation
}

// DecodeConfig decodes config.json into v. It returns an error wrapping
// ErrNoConfig when the run has none, and ErrCorrupt when it does not decode
// into v.
func (r *Run) DecodeConfig(v any) error {
	if r.Config == nil {
		return fmt.Errorf("%w: %s", ErrNoConfig, filepath.Join(r.Dir, ConfigFile))
	}
	if err := json.Unmarshal(r.Config, v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, filepath.Join(r.Dir, ConfigFile), err)
	}
	return nil
}

// LoadRun reads the run directory dir back: history.jsonl (required, with
// its header and at least one op, and valid by model.History.Validate),
// config.json, result.json and expect.json (optional); a result.json
// written without signatures gets them from its report. Its errors wrap ErrNoRun,
// ErrNoHistory or ErrCorrupt and name the file and line concerned.
func LoadRun(dir string) (*Run, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s does not exist", ErrNoRun, dir)
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrNoRun, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("%w: %s is not a directory", ErrNoRun, dir)
	}
	run := &Run{Dir: dir}

	hp := filepath.Join(dir, HistoryFile)
	h, err := readHistoryFile(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s is missing", ErrNoHistory, hp)
	case errors.Is(err, model.ErrMalformed):
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, hp, err)
	case h.Header.Version == 0 && len(h.Ops) == 0 && len(h.Faults) == 0 && h.Truncated != nil:
		return nil, fmt.Errorf("%w: %s: its only line is not a record", ErrCorrupt, hp)
	case h.Header.Version == 0 && len(h.Ops) == 0 && len(h.Faults) == 0:
		return nil, fmt.Errorf("%w: %s holds no records", ErrNoHistory, hp)
	case h.Header.Version > model.FormatVersion:
		return nil, fmt.Errorf("%w: %s has format version %d, newer than %d", ErrCorrupt, hp, h.Header.Version, model.FormatVersion)
	case len(h.Ops) == 0:
		return nil, fmt.Errorf("%w: %s holds no ops: the run decided nothing", ErrNoHistory, hp)
	}
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, hp, err)
	}
	run.History = h

	cp := filepath.Join(dir, ConfigFile)
	switch b, err := readRunFile(dir, ConfigFile); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, cp, err)
	case !json.Valid(b):
		return nil, fmt.Errorf("%w: %s is not valid JSON", ErrCorrupt, cp)
	default:
		run.Config = json.RawMessage(bytes.TrimSpace(b))
	}

	if run.Result, err = loadSummary(dir); err != nil {
		return nil, err
	}
	if run.Expect, err = LoadExpectation(dir); err != nil {
		return nil, err
	}
	return run, nil
}

// loadSummary reads the result.json of the run in dir (nil when there is
// none), its signatures computed from its report when it was written
// before it recorded them.
func loadSummary(dir string) (*Summary, error) {
	rp := filepath.Join(dir, ResultFile)
	b, err := readRunFile(dir, ResultFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, rp, err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, rp, err)
	}
	if s.Signatures == nil { // written before signatures: from its report
		s.Signatures = s.Report.Signatures()
	}
	return &s, nil
}
