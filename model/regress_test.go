package model

import (
	"path/filepath"
	"testing"
	"time"
)

// regressions are histories of correct locks that a checker once called
// invalid; each must check as valid, with the options of its run.
var regressions = []struct {
	file string
	opts Options
	why  string
}{
	{"reentrant-hunt-seed6.jsonl", Options{WatchdogLease: 1500 * time.Millisecond, FreeWait: 500 * time.Millisecond},
		"an owner's release inside its own Expire window took its count to -1 in the splitter"},
}

func TestRegressionHistoriesAreValid(t *testing.T) {
	if testing.Short() {
		t.Skip("reads and checks whole run histories")
	}
	for _, rg := range regressions {
		t.Run(rg.file, func(t *testing.T) {
			h, err := ReadFile(filepath.Join("testdata", "regress", rg.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range Check(h, rg.opts).Results {
				if r.Verdict != Valid {
					t.Errorf("%s: %s (once: %s)\n%s", r.Checker, r.Verdict, rg.why, r.Explanation)
				}
			}
		})
	}
}
