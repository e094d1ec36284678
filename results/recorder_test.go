package results

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// A run directory starts with config.json and an empty history.jsonl (a
// run that crashes leaves what it ran); the history appended as the run
// goes is what Finish keeps, and LoadRun reads it all back.
func TestRecorderWritesConfigFirstAndKeepsHistory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "x", "1")
	start := testConfig{Subject: "reentrant", Workload: "counter", Seed: 42}
	rec, err := Record(dir, start)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if rec.Dir() != dir {
		t.Errorf("Dir = %s", rec.Dir())
	}
	run := &Run{Dir: dir}
	if b, err := os.ReadFile(filepath.Join(dir, ConfigFile)); err != nil || len(b) == 0 {
		t.Fatalf("config.json before the run: %v", err)
	} else {
		run.Config = b
	}
	var got testConfig
	if err := run.DecodeConfig(&got); err != nil || got != start {
		t.Fatalf("config.json = %+v, %v", got, err)
	}

	h := synthHistory(3, 3*time.Second)
	prefix := &model.History{Header: h.Header, Ops: h.Ops[:5]}
	if err := model.WriteHistory(rec.History(), prefix); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(filepath.Join(dir, HistoryFile))
	if err != nil || len(written) == 0 {
		t.Fatalf("history.jsonl while the run goes: %v (%d bytes)", err, len(written))
	}
	final := testConfig{Subject: "reentrant", Workload: "counter", Seed: 42, Duration: 3 * time.Second}
	sum, err := rec.Finish(t.Context(), RunArtifacts{Subject: "reentrant", Workload: "counter", Seed: 42,
		Config: final, History: h, Report: model.Check(h, model.Options{}), HistoryPath: "/elsewhere"})
	if err != nil || sum.Seed != 42 {
		t.Fatalf("Finish: %+v, %v", sum, err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, HistoryFile)); string(after) != string(written) {
		t.Errorf("Finish replaced the history the run appended")
	}
	loaded, err := LoadRun(dir)
	if err != nil || loaded.Result == nil || len(loaded.History.Ops) != 5 {
		t.Fatalf("LoadRun: %v (%+v)", err, loaded)
	}
	if err := loaded.DecodeConfig(&got); err != nil || got != final {
		t.Errorf("config.json after Finish = %+v, %v", got, err)
	}
	if err := rec.Close(); err != nil {
		t.Errorf("Close after Finish: %v", err)
	}
}

// A run directory belongs to one run: a second Record into it is refused
// and leaves the first run's config and history as they were.
func TestRecordRefusesSecondWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	first, err := Record(dir, testConfig{Subject: "reentrant", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := first.History().Write([]byte(`{"header":{"version":1}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	config, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	history, _ := os.ReadFile(filepath.Join(dir, HistoryFile))
	second, err := Record(dir, testConfig{Subject: "fair", Seed: 2})
	if !errors.Is(err, ErrRunExists) {
		second.Close()
		t.Fatalf("second Record: %v, want ErrRunExists", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ConfigFile)); !bytes.Equal(b, config) {
		t.Errorf("the refused writer changed config.json:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, HistoryFile)); !bytes.Equal(b, history) {
		t.Errorf("the refused writer changed history.jsonl:\n%s", b)
	}
}

// A run directory whose run recorded no op is removed; one that holds an
// op, or any file a run writes later, is kept.
func TestRemoveEmptyRun(t *testing.T) {
	start := func(t *testing.T, history string) string {
		dir := filepath.Join(t.TempDir(), "run")
		rec, err := Record(dir, testConfig{Subject: "reentrant"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rec.History().Write([]byte(history)); err != nil {
			t.Fatal(err)
		}
		rec.Close()
		if err := WriteExpectation(dir, Expectation{Scenario: "client-stall", Label: "mutex broken"}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	const header = `{"header":{"version":1}}` + "\n"
	const op = `{"op":{"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok"}}` + "\n"
	for _, tc := range []struct {
		name, history, extra string
		removed              bool
	}{
		{"empty history", "", "", true},
		{"header only", header, "", true},
		{"an op", header + op, "", false},
		{"a result", header, ResultFile, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := start(t, tc.history)
			if tc.extra != "" {
				if err := os.WriteFile(filepath.Join(dir, tc.extra), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			removed, err := RemoveEmptyRun(dir)
			_, statErr := os.Stat(dir)
			if err != nil || removed != tc.removed || os.IsNotExist(statErr) != tc.removed {
				t.Errorf("removed %v, err %v, directory gone %v; want removed %v", removed, err, os.IsNotExist(statErr), tc.removed)
			}
		})
	}
}

// The wire trace is created by its first write: a run whose clients no
// proxy saw leaves no wire.jsonl (an empty one would say they sent
// nothing), and nothing is written once the recorder is closed.
func TestWireTraceIsCreatedByItsFirstWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	rec, err := Record(dir, testConfig{Subject: "redlock", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	w, err := rec.WireTrace()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, model.WireFile)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("wire.jsonl before any write: %v, want none", err)
	}
	if _, err := w.Write([]byte("{\"kind\":\"bind\"}\n")); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("late\n")); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("a write after Close: %v, want os.ErrClosed", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "{\"kind\":\"bind\"}\n" {
		t.Fatalf("wire.jsonl = %q, %v", b, err)
	}
}
