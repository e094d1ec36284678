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
			Doc: "one client's lock, tryLock or unlock interrupted inside a first acquire's first lock command (one in three: the RESP proxy holds the command's reply, which Redis has run, until the interrupt landed, at most 1 s) or 1–40 ms into the call (Thread.interrupt() in Java, a cancelled context in Go), " +
				"every 0.2–0.5 s, while four clients contend: an interrupted acquire is granted or leaves nothing behind (nothing may fire)",
			Plan: interruptPlan(), Duration: 6 * time.Second, MaxWait: model.WaitBound(2 * Lease), Topology: SingleServer(faults.PersistNone),
			Skip:   skipNoInterrupt,
			Faults: interruptSchedule,
		},
	}
}

// interruptSchedule interrupts a random client's next call in windows of
// 150 ms separated by 200–500 ms: one interrupt in three inside the call's
// first lock command, which has run in Redis when the interrupt lands
// (where Redisson 3.20.1 and later leave the lock held and renewed for the
// interrupted thread: faults.InterruptAtReply), the others 1–40 ms into
// the call, in its wait.
func interruptSchedule(w World) ([]faults.Fault, faults.Schedule, error) {
	in, ok := w.Clients.(faults.ReplyInterrupter)
	if !ok {
		return nil, nil, errors.New("client-interrupt: the runner's clients cannot be interrupted")
	}
	targets := w.Clients.Targets()
	n := int(w.Duration / (400 * time.Millisecond))
	fs := make([]faults.Fault, n)
	for i := range fs {
		target := targets[w.Rand.IntN(len(targets))]
		if w.Rand.IntN(3) == 0 {
			fs[i] = faults.InterruptAtReply(in, target)
			continue
		}
		fs[i] = faults.Interrupt(in, target, faults.Range{Min: ms(1), Max: ms(40)}.Draw(w.Rand))
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
