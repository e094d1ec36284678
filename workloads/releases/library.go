// Package releases answers "is the release I run safe?" for one lock
// library: a table of the releases its registry serves (the newest patch
// of each minor line, and every release the catalog of known bugs names),
// each with the catalogued bugs it has, the open bugs, whether lockcheck's
// driver supports it and what lockcheck's own hunt found there; and, for
// one release, its bugs and the nearest release that has none of them.
// The registry's list and the hunts are cached in the repository
// (Dir/LIB/releases.json, Dir/LIB/VERSION.json) so that a page can be made
// again without the network.
package releases

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// ErrInput marks a command line that names no library or release lockcheck
// can answer for: an unknown library, a release its registry does not
// serve, a release outside what the driver supports.
var ErrInput = errors.New("bad input")

// inputError is an error of the command line: its text alone, and
// errors.Is ErrInput.
type inputError struct{ msg string }

func (e inputError) Error() string        { return e.msg }
func (e inputError) Is(target error) bool { return target == ErrInput }

// inputf is an inputError of the formatted text.
func inputf(format string, args ...any) error {
	return inputError{fmt.Sprintf(format, args...)}
}

// Library is one lock library, as the subject named on the command line
// runs it: its releases, and the subjects of the other locks of the same
// registry package, whose catalogued bugs are the library's too.
type Library struct {
	// Name is the subject named ("redisson").
	Name string
	// Versions says where its releases come from, which one lockcheck
	// pins and which ones the driver supports.
	Versions *subject.Versions
	// Subjects are the subjects of Versions.Registry's package: Name
	// first, then the others by name ("redisson-fair", ...).
	Subjects []string
}

// VersionsOf is how the subject called name (no version) runs other
// releases of its library. An error wraps subject.ErrUnknown for no such
// subject, subject.ErrNoVersions for one that runs one release only.
func VersionsOf(ctx context.Context, name string) (*subject.Versions, error) {
	if s, ok := scenario.Named(name); ok { // a kind with a runner of its own
		if v := scenario.VersionsOf(s); v != nil {
			return v, nil
		}
		return nil, fmt.Errorf("%s %w: it has no NAME@VERSION", name, subject.ErrNoVersions)
	}
	s, err := catalog.Subjects.LookupContext(ctx, name)
	if err != nil {
		return nil, err
	}
	if s.Versions == nil {
		return nil, fmt.Errorf("%s %w: it has no NAME@VERSION", name, subject.ErrNoVersions)
	}
	return s.Versions, nil
}

// LookupLibrary is the library of the subject called name. It asks no
// registry. An error wraps ErrInput.
func LookupLibrary(ctx context.Context, name string) (Library, error) {
	v, err := VersionsOf(ctx, name)
	switch {
	case errors.Is(err, subject.ErrUnknown):
		return Library{}, inputf("unknown library %s: no subject of that name (lockcheck subjects lists them)", name)
	case err != nil:
		return Library{}, inputf("library %s: %v", name, err)
	}
	lib := Library{Name: name, Versions: v}
	var others []string
	for _, s := range catalog.Subjects.All() {
		if s.Name != name && s.Versions != nil && s.Versions.Registry == v.Registry {
			others = append(others, s.Name)
		}
	}
	for _, p := range permits.Subjects() {
		if pv := permits.Versions(p.Name); p.Name != name && pv != nil && pv.Registry == v.Registry {
			others = append(others, p.Name)
		}
	}
	slices.Sort(others)
	lib.Subjects = append([]string{name}, slices.Compact(others)...)
	return lib, nil
}

// Bugs are the catalog's bugs of the library's subjects, in the
// catalog's order.
func (l Library) Bugs(c rediscover.Catalog) []rediscover.Bug {
	var out []rediscover.Bug
	for _, b := range c.Bugs {
		if slices.Contains(l.Subjects, b.Subject) {
			out = append(out, b)
		}
	}
	return out
}
