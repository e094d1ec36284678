package scenario

import (
	"errors"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
)

// interruptScenarios are the interrupts of a client's calls: Thread.interrupt()
// of a Java thread blocked in lock, tryLock or unlock, a Go call's
// cancelled context.
func interruptScenarios() []Scenario {
	return []Scenario{
		{
			Name: "client-interrupt", Safe: true,
			Doc: "one client's lock, tryLock or unlock interrupted 0–1 ms (one in three) or 1–40 ms into the call (Thread.interrupt() in Java, a cancelled context in Go), " +
				"every 0.2–0.5 s, while four clients contend: an interrupted acquire is granted or leaves nothing behind (nothing may fire)",
			Plan: interruptPlan(), Duration: 6 * time.Second, MaxWait: model.WaitBound(2 * Lease), Topology: SingleServer(faults.PersistNone),
			Skip:   skipNoInterrupt,
			Faults: interruptSchedule,
		},
	}
}

// interruptSchedule interrupts a random client's next call in windows of
// 150 ms separated by 200–500 ms: one interrupt in three within the call's
// first millisecond, while its first command is likely in flight (where
// Redisson 3.20.1 and later leave the lock held and renewed for the
// interrupted thread), the others 1–40 ms into it, in its wait.
func interruptSchedule(w World) ([]faults.Fault, faults.Schedule, error) {
	in, ok := w.Clients.(faults.Interrupter)
	if !ok {
		return nil, nil, errors.New("client-interrupt: the runner's clients cannot be interrupted")
	}
	targets := w.Clients.Targets()
	n := int(w.Duration / (400 * time.Millisecond))
	fs := make([]faults.Fault, n)
	for i := range fs {
		after := faults.Range{Min: ms(1), Max: ms(40)}
		if w.Rand.IntN(3) == 0 {
			after = faults.Range{Max: ms(1)}
		}
		fs[i] = faults.Interrupt(in, targets[w.Rand.IntN(len(targets))], after.Draw(w.Rand))
	}
	s, err := faults.RandomSchedule(w.Rand, faults.RandomConfig{
		Faults: len(fs), Total: w.Duration - time.Second,
		Quiet: faults.Range{Min: ms(200), Max: ms(500)}, Duration: faults.Range{Min: ms(150), Max: ms(150)},
	})
	return fs, s, err
}

// interruptPlan is contendedPlan with its calls made interruptibly.
func interruptPlan() workloads.Plan {
	p := contendedPlan()
	p.Interruptible = true
	return p
}
