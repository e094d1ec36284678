package permits

import (
	"fmt"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/mutants"
)

// Subject is a semaphore implementation the runner can drive.
type Subject struct {
	Name string
	Doc  string
	// Mutant says it is broken on purpose; Catches names the checker that
	// must catch it.
	Mutant  bool
	Catches string
	Open    impl.SemaphoreMakerFunc
}

// WatchdogTimeout is the Go port's watchdog timeout in runs: a waiter that
// lost its wake-up polls that late, well past the liveness bound.
const WatchdogTimeout = 10 * time.Second

// Subjects are the semaphores lockcheck runs: the Go port of RSemaphore
// and its mutants.
func Subjects() []Subject {
	opts := []impl.Option{impl.WithWatchdogTimeout(WatchdogTimeout)}
	out := []Subject{{
		Name: "semaphore",
		Doc:  "Go port of Redisson's RSemaphore (Redisson 4.7.0's Lua, pub/sub wake-ups)",
		Open: impl.SemaphoreMakerOf(opts...),
	}}
	for _, m := range mutants.Semaphores(opts...) {
		out = append(out, Subject{Name: m.Name, Doc: m.Doc, Mutant: true, Catches: m.Catches, Open: m.Open})
	}
	return out
}

// Lookup returns the subject name.
func Lookup(name string) (Subject, error) {
	for _, s := range Subjects() {
		if s.Name == name {
			return s, nil
		}
	}
	return Subject{}, fmt.Errorf("permits: no semaphore subject %q", name)
}
