package results

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

func TestLoadRun(t *testing.T) {
	h := synthHistory(5, 3*time.Second)
	dir := t.TempDir()
	sum, _ := writeSynthRun(t, dir, h)

	run, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.History.Ops) != len(h.Ops) || len(run.History.Faults) != len(h.Faults) {
		t.Errorf("loaded %d ops, %d faults; want %d, %d", len(run.History.Ops), len(run.History.Faults), len(h.Ops), len(h.Faults))
	}
	var cfg testConfig
	if err := run.DecodeConfig(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 42 || cfg.Subject != "reentrant" || cfg.Duration != 4*time.Second {
		t.Errorf("config = %+v", cfg)
	}
	if run.Result == nil || run.Result.Report.Verdict != sum.Report.Verdict || run.Result.Stats.Grants != sum.Stats.Grants {
		t.Errorf("result = %+v, want %+v", run.Result, sum)
	}
	// Checking the loaded history again gives the same verdict.
	if rep := model.Check(run.History, model.Options{}); rep.Verdict != sum.Report.Verdict {
		t.Errorf("re-check: %s, first check: %s", rep.Verdict, sum.Report.Verdict)
	}
}

func TestLoadRunCrashed(t *testing.T) {
	// Only the runner's history, its last line cut off mid-write.
	dir := t.TempDir()
	writeRaw(t, dir, HistoryFile, `{"header":{"version":1}}`+"\n"+
		`{"op":{"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"blocking":true,"outcome":"ok"}}`+"\n"+
		`{"op":{"p":1,"lock":"L","kind":"rel`)
	run, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.History.Ops) != 1 || run.History.Truncated == nil || run.Config != nil || run.Result != nil {
		t.Errorf("run = %+v, history %+v", run, run.History)
	}
	if err := run.DecodeConfig(&testConfig{}); !errors.Is(err, ErrNoConfig) {
		t.Errorf("DecodeConfig without config.json: %v, want ErrNoConfig", err)
	}
}

func TestLoadRunErrors(t *testing.T) {
	goodHistory := `{"header":{"version":1}}` + "\n" + `{"op":{"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok"}}` + "\n"
	for _, tc := range []struct {
		name  string
		files map[string]string // nil: the directory does not exist
		want  []error
	}{
		{name: "missing dir", want: []error{ErrNoRun}},
		{name: "empty dir", files: map[string]string{}, want: []error{ErrNoHistory}},
		{name: "empty history", files: map[string]string{HistoryFile: ""}, want: []error{ErrNoHistory}},
		{name: "corrupt history", files: map[string]string{HistoryFile: "{\"header\":{\"version\":1}}\nnot json\n{}\n"}, want: []error{ErrCorrupt, model.ErrMalformed}},
		{name: "only garbage", files: map[string]string{HistoryFile: "garbage"}, want: []error{ErrCorrupt}},
		{name: "future version", files: map[string]string{HistoryFile: `{"header":{"version":99}}` + "\n"}, want: []error{ErrCorrupt}},
		{name: "corrupt config", files: map[string]string{HistoryFile: goodHistory, ConfigFile: "{"}, want: []error{ErrCorrupt}},
		{name: "corrupt result", files: map[string]string{HistoryFile: goodHistory, ResultFile: "[1,"}, want: []error{ErrCorrupt}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if tc.files != nil {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for name, content := range tc.files {
					writeRaw(t, dir, name, content)
				}
			}
			run, err := LoadRun(dir)
			if err == nil {
				t.Fatalf("LoadRun succeeded: %+v", run)
			}
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("error %q is not %v", err, w)
				}
			}
			t.Log(err)
		})
	}

	// A file is not a run directory.
	f := filepath.Join(t.TempDir(), "history.jsonl")
	writeRaw(t, filepath.Dir(f), filepath.Base(f), "{}\n")
	if _, err := LoadRun(f); !errors.Is(err, ErrNoRun) {
		t.Errorf("LoadRun(file) = %v, want ErrNoRun", err)
	}
}

func TestDecodeConfigMismatch(t *testing.T) {
	run := &Run{Dir: "d", Config: []byte(`{"seed":"not a number"}`)}
	if err := run.DecodeConfig(&testConfig{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("DecodeConfig = %v, want ErrCorrupt", err)
	}
}

func writeRaw(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
