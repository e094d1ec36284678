package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
)

// TestKnownFindingsFromCatalog: the scoreboard's library-alone scripts come
// from known-bugs.json, each script is in the tree, and the renewal bug
// of Redisson 3.43.0 is known under both names of that release, by its
// signature: a run of another bug of that release is not put down to it.
func TestKnownFindingsFromCatalog(t *testing.T) {
	if len(KnownFindings) == 0 {
		t.Fatal("no library-alone scripts read from known-bugs.json")
	}
	for _, f := range KnownFindings {
		if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(f.Script))); err != nil {
			t.Errorf("%s/%s: script %v", f.Subject, f.Checker, err)
		}
		if len(f.Signatures) == 0 {
			t.Errorf("%s/%s: script %s names no signature (of its own or its bug's): it would stand for any break", f.Subject, f.Checker, f.Script)
		}
	}
	gaveUp := mustSignatures(t, "safety/watchdog-gave-up.after-failure/acquire+release/beyond:renewal-refused")
	orphan := mustSignatures(t, "liveness/orphan-renewed/acquire/during:client-interrupt")
	for _, s := range []string{"redisson@3.43.0", "redisson-3.43"} {
		for _, c := range []string{model.CheckLinearizable, model.CheckMutualExclusion, model.CheckAllowance} {
			if k := lookupKnown(KnownFindings, s, c, gaveUp); k == nil || !strings.HasSuffix(k.Script, "renewal-refused.sh") {
				t.Errorf("%s/%s: the watchdog bug's run is shown by %+v, want renewal-refused.sh", s, c, k)
			}
			if k := lookupKnown(KnownFindings, s, c, orphan); k != nil && !strings.HasSuffix(k.Script, "interrupted-lock.sh") {
				t.Errorf("%s/%s: %s stands for a run whose violation is another bug's", s, c, k.Script)
			}
		}
	}
	if _, err := ParseKnownFindings([]byte(`{"alone": 1}`)); err == nil {
		t.Error("a catalog whose alone is no list parsed")
	}
}

func mustSignatures(t *testing.T, texts ...string) []model.Signature {
	t.Helper()
	var out []model.Signature
	for _, text := range texts {
		s, err := model.ParseSignature(text)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
