package bisect

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Errors of Between and CheckEnds; compare with errors.Is.
var (
	// ErrUnknownRelease: a release the registry does not serve, or no
	// release number.
	ErrUnknownRelease = errors.New("unknown release")
	// ErrOrder: the good release is not older than the bad one.
	ErrOrder = errors.New("good release not older than the bad one")
	// ErrUnsupported: an end of the bisection is outside what the driver
	// supports.
	ErrUnsupported = errors.New("release outside the driver's range")
)

// CheckEnds says why good and bad cannot be a bisection's ends without
// asking a registry: one is no release number, or good is not older.
func CheckEnds(good, bad string) error {
	g, err := subject.ParseRelease(good)
	if err != nil {
		return fmt.Errorf("%w: --good: %v", ErrUnknownRelease, err)
	}
	b, err := subject.ParseRelease(bad)
	if err != nil {
		return fmt.Errorf("%w: --bad: %v", ErrUnknownRelease, err)
	}
	if g.Compare(b) >= 0 {
		return fmt.Errorf("%w: good %s, bad %s", ErrOrder, good, bad)
	}
	return nil
}

// Between lists the releases of vs's library from good to bad, both
// included, oldest first, as its registry serves them now (vs.List,
// bounded by ctx): good, bad, and every stable release between them (a
// pre-release between is left out: it belongs to no release line a user
// runs). An end the list leaves out counts when the registry serves it
// asked alone (Versions.Has). refused maps the releases between that the
// driver does not support (vs.Supported) to why; the ends must be
// supported. Its errors
// wrap ErrUnknownRelease (an end the registry does not serve), ErrOrder,
// ErrUnsupported, or say the registry could not be asked.
func Between(ctx context.Context, vs *subject.Versions, good, bad string) (releases []string, refused map[string]string, err error) {
	if err := CheckEnds(good, bad); err != nil {
		return nil, nil, err
	}
	all, err := vs.List(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot ask %s for its releases: %v (%s)", vs.Registry, err, vs.HowToList)
	}
	g, _ := subject.ParseRelease(good)
	b, _ := subject.ParseRelease(bad)
	found := map[string]bool{}
	refused = map[string]string{}
	add := func(v string) {
		found[v] = true
		if !vs.Supported(v) {
			refused[v] = fmt.Sprintf("outside what the driver supports, %s", vs.Supports)
		}
		releases = append(releases, v)
	}
	for _, v := range all {
		r, err := subject.ParseRelease(v)
		if err != nil || r.Compare(g) < 0 || r.Compare(b) > 0 {
			continue
		}
		end := v == good || v == bad
		if !end && !r.Stable() {
			continue
		}
		add(v)
	}
	for _, end := range []string{good, bad} {
		if !found[end] && served(ctx, vs, end) {
			add(end)
		}
		switch {
		case !found[end]:
			return nil, nil, fmt.Errorf("%w: %s does not serve %s", ErrUnknownRelease, vs.Registry, end)
		case refused[end] != "":
			return nil, nil, fmt.Errorf("%w: %s is %s", ErrUnsupported, end, refused[end])
		}
	}
	slices.SortStableFunc(releases, subject.CompareReleases) // List is oldest first; a bisection depends on it
	return releases, refused, nil
}

// served reports whether vs's registry serves release v when asked for it
// alone (Versions.Has), though its list left v out.
func served(ctx context.Context, vs *subject.Versions, v string) bool {
	if vs.Has == nil {
		return false
	}
	if _, err := subject.ParseRelease(v); err != nil {
		return false
	}
	ok, err := vs.Has(ctx, v)
	return err == nil && ok
}
