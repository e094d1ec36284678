package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Files WriteDir writes.
const (
	LatestMarkdown = "latest.md"
	LatestCSV      = "latest.csv"
	LatestPNG      = "latest.png"
	LatestJSON     = "latest.json"
	HistoryCSV     = "history.csv"
)

// WriteDir writes the report into dir (created if missing): latest.md,
// latest.csv, latest.png and latest.json (the Report itself, durations in
// nanoseconds) replace the previous run's, and the CSV lines are
// also appended to history.csv, the track record of every run written there.
// Each file is written to a temporary file and renamed, so a failed run
// leaves the previous files whole.
func (r *Report) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer) error{
		LatestMarkdown: r.WriteMarkdown,
		LatestCSV:      func(w io.Writer) error { return r.WriteCSV(w, true) },
		LatestPNG:      r.WritePNG,
		LatestJSON: func(w io.Writer) error {
			e := json.NewEncoder(w)
			e.SetIndent("", "  ")
			return e.Encode(r)
		},
	} {
		if err := replaceFile(filepath.Join(dir, name), write); err != nil {
			return fmt.Errorf("bench: write %s: %w", name, err)
		}
	}
	return appendHistory(filepath.Join(dir, HistoryCSV), r)
}

func replaceFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func appendHistory(path string, r *Report) (err error) {
	_, statErr := os.Stat(path)
	header := errors.Is(statErr, os.ErrNotExist)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("bench: open %s: %w", HistoryCSV, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return r.WriteCSV(f, header)
}
