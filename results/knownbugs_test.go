package results

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lockcheck/lockcheck/model"
)

// TestKnownFindingsFromCatalog: the scoreboard's library-alone scripts come
// from known-bugs.json, each script is in the tree, and the renewal bug
// of Redisson 3.43.0 is known under both names of that release.
func TestKnownFindingsFromCatalog(t *testing.T) {
	if len(KnownFindings) == 0 {
		t.Fatal("no library-alone scripts read from known-bugs.json")
	}
	for _, f := range KnownFindings {
		if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(f.Script))); err != nil {
			t.Errorf("%s/%s: script %v", f.Subject, f.Checker, err)
		}
	}
	for _, s := range []string{"redisson@3.43.0", "redisson-3.43"} {
		for _, c := range []string{model.CheckLinearizable, model.CheckMutualExclusion, model.CheckAllowance} {
			if lookupKnown(KnownFindings, s, c) == nil {
				t.Errorf("%s/%s: no library-alone script", s, c)
			}
		}
	}
	if _, err := ParseKnownFindings([]byte(`{"alone": 1}`)); err == nil {
		t.Error("a catalog whose alone is no list parsed")
	}
}
