package workloads

import (
	"errors"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

func TestGenerateIsAFunctionOfTheSeed(t *testing.T) {
	for _, w := range Workloads() {
		a, b := w.Generate(42), w.Generate(42)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed gave %+v and %+v", w.Name, a, b)
		}
		differs := false
		for seed := int64(1); seed < 20 && !differs; seed++ {
			differs = !reflect.DeepEqual(a, w.Generate(seed))
		}
		if !differs {
			t.Errorf("%s: 20 seeds gave the same plan", w.Name)
		}
	}
}

func TestGeneratedPlansAreValid(t *testing.T) {
	for _, w := range Workloads() {
		t.Run(w.Name, rapid.MakeCheck(func(t *rapid.T) {
			p := w.Gen.Draw(t, "plan")
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			if p.Workload != w.Name {
				t.Fatalf("plan.Workload = %q", p.Workload)
			}
		}))
	}
}

func TestLookupWorkload(t *testing.T) {
	if _, err := LookupWorkload(DefaultWorkload); err != nil {
		t.Fatal(err)
	}
	if _, err := LookupWorkload("nope"); !errors.Is(err, ErrUnknownWorkload) {
		t.Fatalf("err = %v, want ErrUnknownWorkload", err)
	}
}

func TestPlanValidate(t *testing.T) {
	good := Workloads()[0].Generate(1)
	for name, mutate := range map[string]func(*Plan){
		"no processes":    func(p *Plan) { p.Processes = 0 },
		"no locks":        func(p *Plan) { p.Locks = nil },
		"bad percent":     func(p *Plan) { p.TryLockPercent = 101 },
		"bad nesting":     func(p *Plan) { p.NestPercent = -1 },
		"negative lease":  func(p *Plan) { p.Lease = -1 },
		"inverted range":  func(p *Plan) { p.Hold = Range{Min: 2, Max: 1} },
		"no op timeout":   func(p *Plan) { p.OpTimeout = 0 },
		"hold near lease": func(p *Plan) { p.Lease = 100; p.Hold = Range{Max: 50} },
	} {
		p := good
		p.Locks = append([]string(nil), good.Locks...)
		mutate(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, p)
		}
	}
}
