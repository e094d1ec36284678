package scenario

import (
	"context"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

func TestMatrixSkipsSubjectsATopologyCannotRun(t *testing.T) {
	sc := Scenario{Name: "nodes-only", Doc: "d", Safe: true, Skip: skipOnNodes}
	redlock, err := catalog.Subjects.Lookup(catalog.RedlockName)
	if err != nil {
		t.Fatal(err)
	}
	reentrant, err := catalog.Subjects.Lookup("reentrant")
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	run := func(_ context.Context, c Cell) (model.Report, string, error) {
		ran[c.Subject.Name]++
		return model.Report{Verdict: model.Valid}, "", nil
	}
	outs := Matrix(context.Background(), []Scenario{sc}, []subject.Subject{redlock, reentrant}, []int64{1, 2}, run, nil)
	if ran["reentrant"] != 0 || ran[catalog.RedlockName] != 2 {
		t.Fatalf("ran %v: want only redlock, twice", ran)
	}
	if err := Verdict(outs); err != nil {
		t.Fatalf("a skipped cell failed the matrix: %v", err)
	}
	for _, o := range outs {
		if o.Subject.Name == "reentrant" && (o.Expect.Skip != skipNeedsOneRedis || o.Why != skipNeedsOneRedis || !o.OK) {
			t.Errorf("the skipped cell does not give its reason: %+v", o)
		}
	}
}

func TestDefaultSkip(t *testing.T) {
	for name, want := range map[string]string{
		"reentrant": "", "fair": "", catalog.RedlockName: skipNeedsNodes, "reentrant-wait": skipNeedsReplicas, "fair-wait": skipNeedsReplicas,
	} {
		s, err := catalog.Subjects.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := DefaultSkip(s); got != want {
			t.Errorf("DefaultSkip(%s) = %q, want %q", name, got, want)
		}
		if got := skipOnSentinel(s); (got != "") != (name == catalog.RedlockName) {
			t.Errorf("skipOnSentinel(%s) = %q", name, got)
		}
	}
}
