package permits

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/mutants"
)

// Subject is a semaphore implementation the runner can drive.
type Subject struct {
	Name string
	Doc  string
	// Release is the release of its library the subject runs ("": not
	// known, or lockcheck's own).
	Release string
	// Mutant says it is broken on purpose; Catches names the checker that
	// must catch it.
	Mutant  bool
	Catches string
	// Open makes a counting semaphore's clients; OpenPermits, set instead,
	// a permit semaphore's (RPermitExpirableSemaphore: the permit plan).
	Open        impl.SemaphoreMakerFunc
	OpenPermits impl.PermitSemaphoreMakerFunc
	// OpenLatch, set instead, makes a latch's clients (the latch plan).
	OpenLatch impl.LatchMakerFunc
	// Installed, if set, says why the subject cannot run here (nil: it can).
	Installed func() error
	// Parts are the subjects of a mixed fleet: process p runs
	// Parts[p % len(Parts)] (Open is then unused).
	Parts []Subject
}

// part returns the subject process p runs.
func (s Subject) part(p int) Subject {
	if len(s.Parts) == 0 {
		return s
	}
	return s.Parts[p%len(s.Parts)]
}

// permitMaker marks the client of a process that runs the permit plan (a
// Client makes both kinds of semaphore: the subject says which it is).
type permitMaker struct{ impl.PermitSemaphoreMaker }

// open opens the client of one process.
func (s Subject) open(ctx context.Context, rdb redis.UniversalClient) (io.Closer, error) {
	if s.OpenLatch != nil {
		m, err := s.OpenLatch(ctx, rdb)
		if err != nil {
			return nil, err
		}
		return latchMaker{m}, nil
	}
	if s.OpenPermits != nil {
		m, err := s.OpenPermits(ctx, rdb)
		if err != nil {
			return nil, err
		}
		return permitMaker{m}, nil
	}
	return s.Open(ctx, rdb)
}

// Check reports why s cannot run here, or nil.
func (s Subject) Check() error {
	for _, p := range append([]Subject{s}, s.Parts...) {
		if p.Installed != nil {
			if err := p.Installed(); err != nil {
				return fmt.Errorf("%s: %w", p.Name, err)
			}
		}
	}
	return nil
}

// WatchdogTimeout is the Go port's watchdog timeout in runs: a waiter that
// lost its wake-up polls that late, well past the liveness bound.
const WatchdogTimeout = 10 * time.Second

// Subjects are the semaphores lockcheck runs: the Go port of RSemaphore,
// Redisson's own through the Java driver, a mixed fleet of the two on one
// semaphore, and the port's mutants; the same for RPermitExpirableSemaphore
// and RCountDownLatch.
func Subjects() []Subject {
	opts := []impl.Option{impl.WithWatchdogTimeout(WatchdogTimeout)}
	port := Subject{
		Name: "semaphore",
		Doc:  "Go port of Redisson's RSemaphore (Redisson 4.7.0's Lua, pub/sub wake-ups)",
		Open: impl.SemaphoreMakerOf(opts...),
	}
	javas := javaSubjects()
	java := javas["redisson-semaphore"]
	out := []Subject{port, java, {
		Name:  "semaphore+redisson-semaphore",
		Doc:   "mixed fleet on one semaphore: the Go port and Redisson's RSemaphore, alternate processes",
		Parts: []Subject{port, java},
	}}
	for _, m := range mutants.Semaphores(opts...) {
		out = append(out, Subject{Name: m.Name, Doc: m.Doc, Mutant: true, Catches: m.Catches, Open: m.Open})
	}
	permitPort := Subject{
		Name:        "permit-semaphore",
		Doc:         "Go port of Redisson's RPermitExpirableSemaphore (permits with ids and leases)",
		OpenPermits: impl.PermitSemaphoreMakerOf(opts...),
	}
	javaPermit := javas["redisson-permit-semaphore"]
	out = append(out, permitPort, javaPermit, Subject{
		Name:  "permit-semaphore+redisson-permit-semaphore",
		Doc:   "mixed fleet on one permit semaphore: the Go port and Redisson's RPermitExpirableSemaphore, alternate processes",
		Parts: []Subject{permitPort, javaPermit},
	})
	for _, m := range mutants.PermitSemaphores(opts...) {
		out = append(out, Subject{Name: m.Name, Doc: m.Doc, Mutant: true, Catches: m.Catches, OpenPermits: m.Open})
	}
	latchPort := Subject{
		Name:      "latch",
		Doc:       "Go port of Redisson's RCountDownLatch",
		OpenLatch: impl.LatchMakerOf(opts...),
	}
	javaLatch := javas["redisson-latch"]
	out = append(out, latchPort, javaLatch, Subject{
		Name:  "latch+redisson-latch",
		Doc:   "mixed fleet on one latch: the Go port and Redisson's RCountDownLatch, alternate processes",
		Parts: []Subject{latchPort, javaLatch},
	})
	for _, m := range mutants.Latches(opts...) {
		out = append(out, Subject{Name: m.Name, Doc: m.Doc, Mutant: true, Catches: m.Catches, OpenLatch: m.Open})
	}
	return out
}
