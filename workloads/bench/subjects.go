package bench

import (
	"errors"
	"fmt"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// DefaultSubjects are the subjects a benchmark measures when none is named,
// in table order: lockcheck's locks, then the peers. The first is the
// baseline of the ratio table.
var DefaultSubjects = []string{"reentrant", "fair", "fenced", "simple", "redsync", "redsync-tuned", "redislock", "redislock-tuned"}

// ErrSubject is wrapped by Subjects' errors for a subject the benchmark
// cannot measure; the error's text says why.
var ErrSubject = errors.New("bench: cannot measure subject")

// refusal is a reason not to measure a subject; it wraps ErrSubject.
type refusal string

func (r refusal) Error() string { return string(r) }
func (refusal) Unwrap() error   { return ErrSubject }

// Subjects looks names (DefaultSubjects when empty) up in reg, in the order
// given: any registered subject that runs on one Redis (reference, peer,
// mutant, a user's Go lock, or an external driver, which then runs one
// driver process per worker). A mixed fleet or a subject that needs another
// topology (RedLock nodes, replicas) is refused with the reason.
func Subjects(reg *subject.Registry, names []string) ([]subject.Subject, error) {
	if len(names) == 0 {
		names = DefaultSubjects
	}
	var out []subject.Subject
	for _, n := range names {
		s, err := reg.Lookup(n)
		if err != nil {
			return nil, err
		}
		switch {
		case len(s.Parts) > 0:
			return nil, refusal(n + " is a mixed fleet; bench measures one subject at a time (list its parts instead)")
		case s.Needs != "" && s.Needs != subject.NeedsOneAddress:
			return nil, refusal(fmt.Sprintf("%s needs a %s topology; bench runs on one Redis", n, s.Needs))
		}
		out = append(out, s)
	}
	return out, nil
}

// maker is the MakerFunc the benchmark opens s with: its settings for a
// watchdog lease of impl.DefaultWatchdogTimeout (30 s), as the lock's own
// defaults have.
func maker(s subject.Subject) impl.MakerFunc {
	mf, _ := s.MakerFor(subject.OpenOptions{WatchdogLease: impl.DefaultWatchdogTimeout})
	return mf
}
