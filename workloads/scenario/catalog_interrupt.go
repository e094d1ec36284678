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
			Doc: "one client's lock, tryLock or unlock interrupted 1–40 ms into the call (Thread.interrupt() in Java, a cancelled context in Go), " +
				"every 0.2–0.5 s, while four clients contend: an interrupted acquire is granted or leaves nothing behind (nothing may fire)",
			Plan: interruptPlan(), Duration: 6 * time.Second, MaxWait: model.WaitBound(2 * Lease), Topology: SingleServer(faults.PersistNone),
			Skip:   skipNoInterrupt,
			Faults: interruptSchedule,
		},
	}
}

// interruptSchedule interrupts a random client's next call, a random
// 1–40 ms into it, in windows of 150 ms separated by 200–500 ms.
func interruptSchedule(w World) ([]faults.Fault, faults.Schedule, error) {
	in, ok := w.Clients.(faults.Interrupter)
	if !ok {
		return nil, nil, errors.New("client-interrupt: the runner's clients cannot be interrupted")
	}
	targets := w.Clients.Targets()
	n := int(w.Duration / (400 * time.Millisecond))
	fs := make([]faults.Fault, n)
	for i := range fs {
		after := faults.Span{Min: ms(1), Max: ms(40)}.Draw(w.Rand)
		fs[i] = faults.Interrupt(in, targets[w.Rand.IntN(len(targets))], after)
	}
	s, err := faults.RandomSchedule(w.Rand, faults.RandomConfig{
		Faults: len(fs), Total: w.Duration - time.Second,
		Quiet: faults.Span{Min: ms(200), Max: ms(500)}, Duration: faults.Span{Min: ms(150), Max: ms(150)},
	})
	return fs, s, err
}

// interruptPlan is contendedPlan with its calls made interruptibly.
func interruptPlan() workloads.Plan {
	p := contendedPlan()
	p.Interruptible = true
	return p
}
