package releases

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/subject"
	"github.com/redis/go-redis/v9"
)

// fakeLib is a library whose subject "lib" pins 1.0.0, in a registry of
// its own that no test opens.
func fakeLib(t *testing.T) (Library, *subject.Registry) {
	t.Helper()
	vs := &subject.Versions{Registry: "fake", Pinned: "1.0.0", Supports: subject.Range{Min: "1.0.0"}}
	reg, err := subject.NewRegistry(subject.Subject{Name: "lib", Versions: vs,
		Open: func(context.Context, redis.UniversalClient) (impl.Maker, error) {
			return nil, fmt.Errorf("not to be opened")
		}})
	if err != nil {
		t.Fatal(err)
	}
	return Library{Name: "lib", Versions: vs, Subjects: []string{"lib"}}, reg
}

// fakeHunt finds a plain run's failure (no fault) in run 2 of seed 2's
// hunt, and nothing in seed 1's three runs.
func fakeHunt(_ context.Context, cfg hunt.Config) (*hunt.Result, error) {
	res := &hunt.Result{Subject: cfg.Subject, Seed: cfg.Seed, Dir: "/tmp/fake-hunt"}
	res.Tried.Runs = 3
	if cfg.Seed == 2 {
		first := hunt.Trial{Draw: hunt.Draw{Seed: 2}, Report: model.Report{Verdict: model.Invalid}, Find: true, Why: "two holders"}
		res.Tried.Runs = 2
		res.Find = &hunt.Find{Run: 2, First: first, Shrunk: first, Command: []string{"lockcheck", "run", "--subject", cfg.Subject, "--seed", "2"}}
	}
	return res, nil
}

func TestHuntReleaseCachesEachSeed(t *testing.T) {
	lib, reg := fakeLib(t)
	cfg := HuntConfig{Budget: 20 * time.Second, Seeds: 2, Registry: reg, Hunt: fakeHunt, Date: "2026-11-29", Commit: "abc1234"}
	h, err := HuntRelease(context.Background(), lib, "1.0.0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Hunts) != 2 || h.Hunts[0].Find != nil || h.Hunts[1].Find == nil {
		t.Fatalf("hunts %+v: want seed 1 clean, seed 2 a find", h.Hunts)
	}
	if want := "lockcheck releases lib@1.0.0 --hunt --budget 20s --seeds 2"; h.Command != want || !cfg.Same(h) {
		t.Errorf("command %q (same %v), want %q", h.Command, cfg.Same(h), want)
	}
	if s := h.Summary(); !strings.HasPrefix(s, "found (no fault, seed 2, run 2, seen once, not reproduced): two holders") {
		t.Errorf("summary %q", s)
	}
	dir := t.TempDir()
	if err := SaveHunt(dir, "lib", h); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "lib", "1.0.0.json"))
	if strings.Contains(string(data), "/tmp/fake-hunt") {
		t.Errorf("the cached hunt keeps its run directories:\n%s", data)
	}
	got, err := LoadHunts(dir, "lib")
	if err != nil || got["1.0.0"] == nil || got["1.0.0"].Summary() != h.Summary() {
		t.Fatalf("read back: %v %v", got, err)
	}
	h.Hunts = h.Hunts[:1]
	if s := h.Summary(); s != "nothing beyond the fault in 3 runs (20s on each of seeds 1 to 2)" {
		t.Errorf("clean summary %q", s)
	}
	if s := (*Hunt)(nil).Summary(); s != "not hunted" {
		t.Errorf("nil summary %q", s)
	}
}

func TestLoadHuntsRefusesAMisnamedFile(t *testing.T) {
	dir := t.TempDir()
	if err := SaveHunt(dir, "lib", &Hunt{Release: "1.0.0"}); err != nil {
		t.Fatal(err)
	}
	os.Rename(filepath.Join(dir, "lib", "1.0.0.json"), filepath.Join(dir, "lib", "1.0.1.json"))
	if _, err := LoadHunts(dir, "lib"); err == nil || !strings.Contains(err.Error(), `of release "1.0.0"`) {
		t.Errorf("a hunt of 1.0.0 cached as 1.0.1: %v", err)
	}
}
