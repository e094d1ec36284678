package permits

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Lookup is LookupContext without a context of the caller's.
func Lookup(name string) (Subject, error) {
	return LookupContext(context.Background(), name)
}

// LookupContext returns the subject called name: one of Subjects;
// NAME@VERSION, Redisson's object NAME at that release of Redisson
// (subject.VersionSeparator; "latest" asks Maven Central), fetched and built
// into lockcheck's cache when it is not there yet (catalog.Driver.AtRelease),
// bounded by ctx; or A+B, a mixed fleet of subjects of one kind of object
// (subject.MixSeparator), each of which may name a release. A name that
// names no such subject is an error wrapping subject.ErrUnknown; a release
// that cannot be had, one wrapping subject.ErrRelease.
func LookupContext(ctx context.Context, name string) (Subject, error) {
	all := Subjects()
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	if parts := strings.Split(name, subject.MixSeparator); len(parts) > 1 {
		return lookupMix(ctx, name, parts)
	}
	if !strings.Contains(name, subject.VersionSeparator) {
		return Subject{}, fmt.Errorf("%w %q: no semaphore or latch subject (have %s)", subject.ErrUnknown, name, strings.Join(names(all), ", "))
	}
	base, v := subject.SplitVersion(name)
	i := slices.IndexFunc(javaObjects, func(o javaObject) bool { return o.name == base })
	if i < 0 {
		if slices.Contains(names(all), base) {
			return Subject{}, fmt.Errorf("%w: %s %w (no %s%s)", subject.ErrRelease, base, subject.ErrNoVersions, subject.VersionSeparator, v)
		}
		return Subject{}, fmt.Errorf("%w %q: no semaphore or latch subject (have %s)", subject.ErrUnknown, base, strings.Join(names(all), ", "))
	}
	if v == "" {
		return Subject{}, fmt.Errorf("%w: %q: no version after %q", subject.ErrRelease, name, subject.VersionSeparator)
	}
	return javaObjects[i].release(ctx, name, v)
}

// LookupRunnable is LookupContext, then Subject.Check: the subject called
// name, if it can run here.
func LookupRunnable(ctx context.Context, name string) (Subject, error) {
	s, err := LookupContext(ctx, name)
	if err != nil {
		return Subject{}, err
	}
	return s, s.Check()
}

// resolveTimeout bounds the resolution of NAME@VERSION (a registry query,
// then a fetch and build when the release is not in the cache), as the
// lock subjects' (workloads/subject).
const resolveTimeout = 15 * time.Minute

// release is the object at release v of Redisson (name: NAME@v as asked):
// the subject of the pinned release, or a build of v.
func (o javaObject) release(ctx context.Context, name, v string) (Subject, error) {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	d := o.driver()
	vs := d.Versions()
	v, err := vs.Resolve(ctx, name, v)
	if err != nil {
		return Subject{}, err
	}
	if v == vs.Pinned {
		return o.subject(d), nil
	}
	at, err := d.AtRelease(ctx, v)
	if err != nil {
		return Subject{}, err
	}
	return o.subject(at), nil
}

// lookupMix is the mixed fleet of parts (each looked up), which must all
// be one kind of object: process p runs parts[p % len(parts)].
func lookupMix(ctx context.Context, name string, parts []string) (Subject, error) {
	mix := Subject{Name: name, Doc: "mixed fleet on one object: " + strings.Join(parts, ", ") + ", in turn"}
	for _, n := range parts {
		p, err := LookupContext(ctx, n)
		if err != nil {
			return Subject{}, err
		}
		if len(p.Parts) > 0 {
			return Subject{}, fmt.Errorf("%w %q: part %s is a mixed fleet itself", subject.ErrUnknown, name, n)
		}
		if len(mix.Parts) > 0 && p.kind() != mix.Parts[0].kind() {
			return Subject{}, fmt.Errorf("%w %q: %s is a %s, %s a %s: a fleet shares one object", subject.ErrUnknown, name, mix.Parts[0].Name, mix.Parts[0].kind(), n, p.kind())
		}
		mix.Parts = append(mix.Parts, p)
	}
	return mix, nil
}

// Known reports whether name (NAME, NAME@VERSION or a mix of them) names
// semaphores or latches, which this package runs, rather than locks: each
// part's NAME is one of Subjects. It asks no registry.
func Known(name string) bool {
	have := names(Subjects())
	for _, part := range strings.Split(name, subject.MixSeparator) {
		base, _ := subject.SplitVersion(part)
		if !slices.Contains(have, base) {
			return false
		}
	}
	return true
}

// kind names the object s drives.
func (s Subject) kind() string {
	switch {
	case s.OpenLatch != nil:
		return "latch"
	case s.OpenPermits != nil:
		return "permit semaphore"
	}
	return "semaphore"
}

func names(subjects []Subject) []string {
	out := make([]string, len(subjects))
	for i, s := range subjects {
		out[i] = s.Name
	}
	return out
}

// Versions returns how the subject called name runs other releases of its
// library (NAME@VERSION), or nil when it runs one release only (the Go
// ports, the mutants) or is none of Subjects.
func Versions(name string) *subject.Versions {
	for _, o := range javaObjects {
		if o.name == name {
			return o.driver().Versions()
		}
	}
	return nil
}

// Named is the subject a matrix runs for name, a semaphore or latch by
// Known's rule, without building a release: asSubject of the subject of
// that name, or for NAME@VERSION and mixes a subject of that name alone
// (the cell's run resolves it). ok is false when name is not Known.
func Named(name string) (s subject.Subject, ok bool) {
	if !Known(name) {
		return subject.Subject{}, false
	}
	for _, p := range Subjects() {
		if p.Name == name {
			return asSubject(p), true
		}
	}
	_, v := subject.SplitVersion(name)
	return asSubject(Subject{Name: name, Release: v}), true
}

// asSubject is s as a matrix names it: a subject.KindPermits subject with
// s's name, doc and release, claiming nothing a lock claims (no watchdog).
func asSubject(s Subject) subject.Subject {
	return subject.Subject{Name: s.Name, Kind: subject.KindPermits, Doc: s.Doc, NoWatchdog: true, Release: s.Release}
}
