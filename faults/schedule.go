package faults

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Step is one planned fault window: fault number Fault (an index into
// Nemesis.Faults) is started At after the nemesis starts and stopped Duration
// later.
type Step struct {
	At       time.Duration `json:"at"`
	Duration time.Duration `json:"duration"`
	Fault    int           `json:"fault"`
}

// Schedule is a nemesis plan: steps in order of At that do not overlap (one
// fault at a time). A fixed scenario writes it out, e.g. one pause of 2 s at
// t=3s:
//
//	faults.Schedule{{At: 3 * time.Second, Duration: 2 * time.Second, Fault: 0}}
//
// A random one comes from RandomSchedule.
type Schedule []Step

// Validate checks that every step names one of nFaults faults, has a positive
// duration, and starts no earlier than the previous step ends.
func (s Schedule) Validate(nFaults int) error {
	var end time.Duration
	for i, st := range s {
		switch {
		case st.Fault < 0 || st.Fault >= nFaults:
			return fmt.Errorf("schedule step %d: fault %d out of range [0,%d)", i, st.Fault, nFaults)
		case st.At < 0 || st.Duration <= 0:
			return fmt.Errorf("schedule step %d: at %v, duration %v: want at >= 0 and duration > 0", i, st.At, st.Duration)
		case st.At < end:
			return fmt.Errorf("schedule step %d: starts at %v before the previous step ends at %v", i, st.At, end)
		}
		end = st.At + st.Duration
	}
	return nil
}

// End is when the last step ends (0 for an empty schedule).
func (s Schedule) End() time.Duration {
	if len(s) == 0 {
		return 0
	}
	last := s[len(s)-1]
	return last.At + last.Duration
}

// Range is a closed range of durations [Min, Max] to draw from: the one
// drawn-duration type of a run's plan (workloads.Range) and its faults.
type Range struct {
	Min time.Duration `json:"min"`
	Max time.Duration `json:"max"`
}

// Draw returns a duration drawn uniformly from [Min, Max] with rng (Min when
// Max <= Min).
func (s Range) Draw(rng *rand.Rand) time.Duration {
	if s.Max <= s.Min {
		return s.Min
	}
	return s.Min + time.Duration(rng.Int64N(int64(s.Max-s.Min)+1))
}

// RandomConfig describes a random schedule.
type RandomConfig struct {
	// Faults is how many faults there are to choose from (len(Nemesis.Faults)).
	Faults int `json:"faults"`
	// Total bounds the schedule: every step ends by Total.
	Total time.Duration `json:"total"`
	// Quiet is the fault-free time before each step (also before the first,
	// so the workload warms up).
	Quiet Range `json:"quiet"`
	// Duration is how long each fault stays on.
	Duration Range `json:"duration"`
}

// RandomSchedule draws a schedule from rng: quiet time, a fault chosen
// uniformly, its duration, repeated until the next step would end after
// cfg.Total. It is a pure function of rng's state and cfg: the same seed and
// config give the same schedule.
func RandomSchedule(rng *rand.Rand, cfg RandomConfig) (Schedule, error) {
	switch {
	case cfg.Faults <= 0:
		return nil, errors.New("random schedule: no faults to choose from")
	case cfg.Quiet.Min < 0 || cfg.Quiet.Max < cfg.Quiet.Min:
		return nil, fmt.Errorf("random schedule: quiet %v..%v: want 0 <= min <= max", cfg.Quiet.Min, cfg.Quiet.Max)
	case cfg.Duration.Min <= 0 || cfg.Duration.Max < cfg.Duration.Min:
		return nil, fmt.Errorf("random schedule: duration %v..%v: want 0 < min <= max", cfg.Duration.Min, cfg.Duration.Max)
	case cfg.Quiet.Max+cfg.Duration.Max <= 0:
		return nil, errors.New("random schedule: quiet and duration are both zero")
	}
	var s Schedule
	var t time.Duration
	for {
		at := t + cfg.Quiet.Draw(rng)
		d := cfg.Duration.Draw(rng)
		f := rng.IntN(cfg.Faults)
		if at+d > cfg.Total {
			return s, nil
		}
		s = append(s, Step{At: at, Duration: d, Fault: f})
		t = at + d
	}
}
