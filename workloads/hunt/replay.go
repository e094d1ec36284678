package hunt

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/lockcheck/lockcheck/results"
)

// Replay runs d n times on cfg.Subject, each run into a directory of its
// own under <cfg.Out>/runs/replay/<time>-<seed>/, and judges each as a hunt
// does (Trial.Find: an invalid plain run, or a scenario verdict other than
// the expected one). It is how a find's shrunk draw is tried on another
// release: the same seed, duration and plan, or the same scenario.
// cfg.Budget and cfg.RunDuration are not used; Seed neither (d has its
// own).
//
// Guarantees: Replay starts no goroutine that outlives it and stops the
// redis-server it started; it returns the trials made before an error
// (ctx's, or a run that could not be made) with that error.
func Replay(ctx context.Context, cfg Config, d Draw, n int) ([]Trial, error) {
	cfg.RunDuration = max(d.Duration, MinRun)
	cfg.Budget, cfg.Seed = cfg.RunDuration, d.Seed
	subj, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	exec, _, closeExec, err := cfg.executor(ctx, subj)
	if err != nil {
		return nil, err
	}
	defer closeExec()
	if err := exec.Check(d); err != nil {
		return nil, fmt.Errorf("%w: replay of %s: %v", ErrConfig, d.Describe(), err)
	}
	base, err := results.NewRunDir(cfg.Out, "replay", cfg.now(), d.Seed, "")
	if err != nil {
		return nil, err
	}
	var out []Trial
	for i := range n {
		t, err := exec.Exec(ctx, d, filepath.Join(base, fmt.Sprintf("%03d-%s-%d", i+1, d.What(), d.Seed)))
		if err != nil {
			return out, err
		}
		t.Draw = d
		out = append(out, t)
	}
	return out, nil
}
