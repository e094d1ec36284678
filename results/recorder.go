package results

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/lockcheck/lockcheck/model"
)

// Recorder is one run directory while its run goes: Record writes
// config.json first and opens history.jsonl for appending, so a run that
// crashes still leaves what it ran and a checkable prefix; Finish writes
// the rest. A Recorder is used by one goroutine.
type Recorder struct {
	dir     string
	history *os.File
	wireMu  sync.Mutex
	wire    *os.File // wire.jsonl, once written to
	closed  bool     // Close was called: no more writes
}

// ErrRunExists: Record was given a directory that holds a run already.
var ErrRunExists = errors.New("results: the run directory holds a run already")

// Record starts the run directory dir (creating it): it creates
// history.jsonl, which must not exist, and writes config as config.json.
// A directory belongs to one run: one that holds a history already is
// refused (ErrRunExists) and left as it is, never appended to. The caller
// calls Finish, or Close when the run left nothing to finish.
func Record(dir string, config any) (*Recorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, HistoryFile)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%w: %s exists", ErrRunExists, p)
	}
	if err != nil {
		return nil, err
	}
	if err := WriteConfig(dir, config); err != nil {
		f.Close()
		return nil, err
	}
	return &Recorder{dir: dir, history: f}, nil
}

// Dir is the run directory.
func (r *Recorder) Dir() string { return r.dir }

// History is history.jsonl, for the runner to append the history to as the
// run goes (workloads.Deps.History).
func (r *Recorder) History() io.Writer { return r.history }

// WireTrace is the run's wire trace (model.WireFile), for the runner to
// append to as the run goes (workloads.Deps.WireTrace). The file is created
// by the first write: a run whose clients went past every proxy (a
// RedLock subject dials its own nodes) leaves none, rather than an empty
// trace that would say its clients sent nothing.
func (r *Recorder) WireTrace() (io.Writer, error) {
	return writerFunc(r.writeWire), nil
}

// writeWire appends p to wire.jsonl, opening it on first use.
func (r *Recorder) writeWire(p []byte) (int, error) {
	r.wireMu.Lock()
	defer r.wireMu.Unlock()
	if r.closed {
		return 0, os.ErrClosed
	}
	if r.wire == nil {
		f, err := os.OpenFile(filepath.Join(r.dir, model.WireFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return 0, err
		}
		r.wire = f
	}
	return r.wire.Write(p)
}

// writerFunc is an io.Writer made of its Write.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Finish closes history.jsonl and writes the rest of the run directory as
// WriteRunContext does; the history the runner appended is kept as it is
// (a.HistoryPath is ignored).
func (r *Recorder) Finish(ctx context.Context, a RunArtifacts) (Summary, error) {
	_ = r.Close()
	a.HistoryPath = filepath.Join(r.dir, HistoryFile)
	return WriteRunContext(ctx, r.dir, a)
}

// Close closes history.jsonl and the wire trace; it is idempotent.
func (r *Recorder) Close() error {
	var err error
	r.wireMu.Lock()
	r.closed = true
	if r.wire != nil {
		err = r.wire.Close()
		r.wire = nil
	}
	r.wireMu.Unlock()
	if r.history != nil {
		err = errors.Join(r.history.Close(), err)
		r.history = nil
	}
	return err
}

// runStartFiles are the files a run directory holds before its run
// recorded anything: what RemoveEmptyRun may remove.
var runStartFiles = map[string]bool{ConfigFile: true, HistoryFile: true, ExpectFile: true, model.WireFile: true}

// RemoveEmptyRun removes the run directory dir when its run recorded no
// op: it holds nothing but config.json, expect.json, an empty wire trace
// and a history.jsonl without ops (a run stopped or failed before its
// clients started). It reports whether it removed dir; a directory holding
// anything else, or a history with an op, is left as it is.
func RemoveEmptyRun(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if !runStartFiles[e.Name()] || e.IsDir() {
			return false, nil
		}
	}
	h, err := model.ReadFile(filepath.Join(dir, HistoryFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, nil // not a history this can vouch for: kept
	}
	if h != nil && (len(h.Ops) > 0 || len(h.Faults) > 0) {
		return false, nil
	}
	if fi, err := os.Stat(filepath.Join(dir, model.WireFile)); err == nil && fi.Size() > 0 {
		return false, nil
	}
	return true, os.RemoveAll(dir)
}
