package results

import (
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results/internal/synth"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// synthFault is the fault window of every synthetic history (synth.Fault).
var synthFault = synth.Fault

// synthHistory is synth.History.
func synthHistory(seed int64, dur time.Duration) *model.History { return synth.History(seed, dur) }

func TestSynthHistoryIsValid(t *testing.T) {
	h := synthHistory(1, 4*time.Second)
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	rep := model.Check(h, model.Options{})
	if rep.Verdict != model.Valid {
		t.Fatalf("synthetic history is not valid:\n%s", rep)
	}
	st := ComputeStats(h)
	if st.ByKind[model.Acquire].Info != 1 || st.ByKind[model.Acquire].Fail == 0 {
		t.Fatalf("want one info and some failed acquires, got %+v", st.ByKind[model.Acquire])
	}
}
