package workloads

import (
	"strconv"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

func fmtInt(n int) string { return strconv.Itoa(n) }

// TestReferenceLocksPass runs every workload on every reference lock for a
// few seconds: each run must be valid and must have done real work.
func TestReferenceLocksPass(t *testing.T) {
	for _, subj := range catalog.Subjects.All() {
		if subj.Kind != subject.KindReference || subj.Needs != "" {
			continue // topology-bound subjects run in workloads/scenario
		}
		for _, w := range Workloads() {
			t.Run(subj.Name+"/"+w.Name, func(t *testing.T) {
				t.Parallel() // -parallel at a time, each on a redis-server of its own
				s := startRedis(t)
				cfg := DefaultRunConfig()
				cfg.Subject, cfg.Workload, cfg.Seed = subj.Name, w.Name, 7
				cfg.CheckTimeout = 30 * time.Second
				// A thin run is run again, longer: how much a slow lock
				// (RedLock's retries) gets done in 2.5 s depends on the
				// machine's load, not on the lock. Every run must be valid.
				var res *Result
				for cfg.Duration = 2500 * time.Millisecond; ; cfg.Duration *= 2 {
					res = run(t, s, cfg, Deps{})
					t.Log(summary(res))
					if res.Report.Verdict != model.Valid {
						t.Fatalf("verdict %s:\n%s", res.Report.Verdict, res.Report)
					}
					if res.Stats.Granted >= 10 && res.Stats.Sections >= 10 {
						break
					}
					if cfg.Duration >= 10*time.Second {
						t.Fatalf("run too thin: %+v", res.Stats)
					}
				}
				if subj.Fair {
					if _, ok := res.Report.Result(model.CheckFairness); !ok {
						t.Fatalf("fairness checker did not run on a fair subject:\n%s", res.Report)
					}
				}
				if len(res.Warnings) > 0 {
					t.Fatalf("warnings: %v", res.Warnings)
				}
			})
		}
	}
}
