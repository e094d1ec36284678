package catalog

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/lockcheck/lockcheck/workloads/catalog/release"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// ScoredReleases are the releases the scoreboard scores beside each
// library's pinned one: rows of their own (NAME@VERSION).
var ScoredReleases = []string{
	// The last Redisson before 3.44.0's fix of a watchdog that stops
	// renewing after one failed renewal.
	"redisson@3.43.0",
}

// releases says how a driver runs other releases of its library than the
// one it pins: where they are listed, how one is fetched and built into
// its folder of lockcheck's cache, and the driver that runs that build.
type releases struct {
	// library names the cache folder ("redisson": CacheDir/redisson/V).
	library string
	// registry names the registry and the package ("Maven Central
	// org.redisson:redisson").
	registry string
	// pinned is the release the bare name runs (built by make deps).
	pinned string
	// list lists the registry's releases, oldest first.
	list func(ctx context.Context) ([]string, error)
	// supports is the range of releases the driver supports, as measured
	// (docs/drivers.md).
	supports subject.Range
	// has, if set, says whether the registry serves release v (when its
	// list may leave some out: the Go module proxy's); else list decides.
	has func(ctx context.Context, v string) (bool, error)
	// howTo says how to list them by hand.
	howTo string
	// build fetches release v with the ecosystem's own client, checked
	// against the registry's checksums, and builds it into dir.
	build func(ctx context.Context, v, dir string) error
	// sources are the driver's folders (relative to DriversDir) whose
	// files the build reads: a change to them builds again.
	sources []string
	// at returns d running the build of release v in dir.
	at func(d Driver, v, dir string) Driver
}

// versions is d's subject.Versions (nil when d runs one release only).
func (d Driver) versions() *subject.Versions {
	r := d.releases
	if r == nil {
		return nil
	}
	return &subject.Versions{
		Registry: r.registry, Pinned: r.pinned, List: r.list, Has: r.serves, HowToList: r.howTo, Supports: r.supports,
		At: func(ctx context.Context, v string) (subject.Subject, error) {
			at, err := d.AtRelease(ctx, v)
			if err != nil {
				return subject.Subject{}, err
			}
			return at.Subject(), nil
		},
	}
}

// ErrOneRelease is returned by AtRelease for a driver that runs one
// release only.
var ErrOneRelease = fmt.Errorf("%w: the driver runs one release only", subject.ErrRelease)

// AtRelease returns d at release v of its library, named NAME@v: from the
// cache, else fetched and built there once the registry confirmed that it
// serves v. Every error wraps subject.ErrRelease and names NAME@v.
func (d Driver) AtRelease(ctx context.Context, v string) (Driver, error) {
	r := d.releases
	if r == nil {
		return Driver{}, fmt.Errorf("%s: %w", d.Name, ErrOneRelease)
	}
	name := d.Name + subject.VersionSeparator + v
	dir, err := r.folder(v)
	if err != nil {
		return Driver{}, fmt.Errorf("%w: %s: %v", subject.ErrRelease, name, err)
	}
	if !release.Built(dir) {
		served, err := r.serves(ctx, v)
		if err != nil {
			return Driver{}, fmt.Errorf("%w: %s is not in the cache (%s) and %s cannot be asked: %v", subject.ErrRelease, name, dir, r.registry, err)
		}
		if !served {
			return Driver{}, fmt.Errorf("%w: %s: %s serves no release %s (lockcheck subjects --versions %s)", subject.ErrRelease, name, r.registry, v, d.Name)
		}
		build := func(ctx context.Context, dir string) error { return r.build(ctx, v, dir) }
		if err := release.Ensure(ctx, dir, build); err != nil {
			return Driver{}, fmt.Errorf("%w: %s could not be fetched and built into %s: %v", subject.ErrRelease, name, dir, err)
		}
	}
	at := r.at(d, v, dir)
	at.Name, at.releases, at.Release = name, nil, v
	return at, nil
}

// folder is the cache folder of release v built from the driver's current
// sources: CacheDir/library/v-STAMP.
func (r *releases) folder(v string) (string, error) {
	base, err := DriversDir()
	if err != nil {
		return "", err
	}
	var roots []string
	for _, s := range r.sources {
		roots = append(roots, filepath.Join(base, s))
	}
	stamp, err := release.SourceStamp(roots...)
	if err != nil {
		return "", err
	}
	return release.Folder(r.library, v+"-"+stamp)
}

// serves reports whether the registry serves release v.
func (r *releases) serves(ctx context.Context, v string) (bool, error) {
	if r.has != nil {
		return r.has(ctx, v)
	}
	all, err := r.list(ctx)
	return slices.Contains(all, v), err
}
