package faults_test

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
)

var randomCfg = faults.RandomConfig{
	Faults:   3,
	Total:    time.Minute,
	Quiet:    faults.Range{Min: time.Second, Max: 3 * time.Second},
	Duration: faults.Range{Min: 500 * time.Millisecond, Max: 4 * time.Second},
}

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func TestRandomScheduleIsAFunctionOfTheSeed(t *testing.T) {
	a, err := faults.RandomSchedule(seeded(42), randomCfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := faults.RandomSchedule(seeded(42), randomCfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different schedules:\n%v\n%v", a, b)
	}
	c, err := faults.RandomSchedule(seeded(43), randomCfg)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, c) {
		t.Fatalf("seeds 42 and 43 gave the same schedule %v", a)
	}
}

func TestRandomScheduleShape(t *testing.T) {
	for seed := range uint64(50) {
		s, err := faults.RandomSchedule(seeded(seed), randomCfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(randomCfg.Faults); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if s.End() > randomCfg.Total {
			t.Fatalf("seed %d: schedule ends at %v, after Total %v", seed, s.End(), randomCfg.Total)
		}
		// 60 s of steps that take at most 7 s each: at least 8 of them.
		if len(s) < 8 {
			t.Fatalf("seed %d: only %d steps in %v", seed, len(s), randomCfg.Total)
		}
		var prevEnd time.Duration
		used := map[int]bool{}
		for i, st := range s {
			if gap := st.At - prevEnd; gap < randomCfg.Quiet.Min || gap > randomCfg.Quiet.Max {
				t.Fatalf("seed %d step %d: quiet gap %v outside %v", seed, i, gap, randomCfg.Quiet)
			}
			if st.Duration < randomCfg.Duration.Min || st.Duration > randomCfg.Duration.Max {
				t.Fatalf("seed %d step %d: duration %v outside %v", seed, i, st.Duration, randomCfg.Duration)
			}
			prevEnd = st.At + st.Duration
			used[st.Fault] = true
		}
		if len(used) < 2 {
			t.Errorf("seed %d: only faults %v drawn in %d steps", seed, used, len(s))
		}
	}
}

func TestRandomScheduleRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]faults.RandomConfig{
		"no faults":     {Total: time.Second, Duration: faults.Range{Min: 1, Max: 1}},
		"zero duration": {Faults: 1, Total: time.Second},
		"max < min":     {Faults: 1, Total: time.Second, Duration: faults.Range{Min: 2, Max: 1}},
	} {
		if _, err := faults.RandomSchedule(seeded(1), cfg); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestScheduleValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		s  faults.Schedule
		ok bool
	}{
		"empty":        {nil, true},
		"one":          {faults.Schedule{{At: 3 * time.Second, Duration: 2 * time.Second, Fault: 0}}, true},
		"back to back": {faults.Schedule{{At: 0, Duration: time.Second}, {At: time.Second, Duration: time.Second, Fault: 1}}, true},
		"overlap":      {faults.Schedule{{At: 0, Duration: 2 * time.Second}, {At: time.Second, Duration: time.Second}}, false},
		"bad fault":    {faults.Schedule{{At: 0, Duration: time.Second, Fault: 2}}, false},
		"no duration":  {faults.Schedule{{At: 0, Fault: 0}}, false},
	} {
		if err := tc.s.Validate(2); (err == nil) != tc.ok {
			t.Errorf("%s: Validate = %v, want ok=%v", name, err, tc.ok)
		}
	}
}
