package subject

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// KindMixed marks a fleet of two or more subjects run together on the same
// locks (Mix).
const KindMixed Kind = "mixed"

// MixSeparator joins the parts of a mixed subject's name ("reentrant+redis-py").
const MixSeparator = "+"

// Mix returns a subject whose processes alternate between parts: process id
// p runs parts[p % len(parts)], on the same lock names as the others. It
// answers whether implementations that claim the same lock exclude each
// other: a Go service and a Node service during a migration, say. The mix is
// reentrant (fair) only when every part is; its watchdog lease is the run's.
func Mix(parts ...Subject) (Subject, error) {
	if len(parts) < 2 {
		return Subject{}, errors.New("mix: want two or more subjects")
	}
	names := make([]string, len(parts))
	m := Subject{Kind: KindMixed, Reentrant: true, Fair: true, SyncsReplicas: true, ReadWrite: true}
	for i, p := range parts {
		if len(p.Parts) > 0 {
			return Subject{}, fmt.Errorf("mix: %s is itself a mix", p.Name)
		}
		names[i] = p.Name
		m.Reentrant = m.Reentrant && p.Reentrant
		m.Fair = m.Fair && p.Fair
		m.ReadWrite = m.ReadWrite && p.ReadWrite
		m.SyncsReplicas = m.SyncsReplicas && p.SyncsReplicas
		m.NoWatchdog = m.NoWatchdog || p.NoWatchdog
		m.TTLWakeups = m.TTLWakeups || p.TTLWakeups
		m.SplitVotes = m.SplitVotes || p.SplitVotes
		m.AttemptsHold = m.AttemptsHold || p.AttemptsHold
		m.QueueTimeout = max(m.QueueTimeout, p.QueueTimeout)
		m.WaitSpent = m.WaitSpent || p.WaitSpent
		m.SplitWait = max(m.SplitWait, p.SplitWait)
		m.LeaseGranularity = max(m.LeaseGranularity, p.LeaseGranularity)
		if p.Needs != "" {
			m.Needs = p.Needs
		}
	}
	m.Name = strings.Join(names, MixSeparator)
	m.Doc = "processes alternate between " + strings.Join(names, ", ") + " on the same locks"
	m.Parts = parts
	return m, nil
}

// lookupMix resolves "A+B[+C...]" from the registry's subjects.
func (r *Registry) lookupMix(ctx context.Context, name string) (Subject, error) {
	var parts []Subject
	for _, n := range strings.Split(name, MixSeparator) {
		s, err := r.LookupContext(ctx, n)
		if err != nil {
			return Subject{}, fmt.Errorf("mix %q: %w", name, err)
		}
		parts = append(parts, s)
	}
	return Mix(parts...)
}

// PartNames returns the names of the subjects a run's processes use, in
// the order process ids take them: the parts of a mix, else the subject.
func (s Subject) PartNames() []string {
	if len(s.Parts) == 0 {
		return []string{s.Name}
	}
	names := make([]string, len(s.Parts))
	for i, p := range s.Parts {
		names[i] = p.Name
	}
	return names
}

// MakerFuncs returns the MakerFunc of every part (the subject's own when it
// is no mix) and the longest watchdog lease their holds have.
func (s Subject) MakerFuncs(opts OpenOptions) ([]impl.MakerFunc, time.Duration) {
	parts := s.Parts
	if len(parts) == 0 {
		parts = []Subject{s}
	}
	var mfs []impl.MakerFunc
	var lease time.Duration
	for _, p := range parts {
		mf, l := p.MakerFor(opts)
		mfs = append(mfs, mf)
		lease = max(lease, l)
	}
	return mfs, lease
}
