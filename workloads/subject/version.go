package subject

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// VersionSeparator joins a subject's name and a release of its library:
// "redisson@4.7.0", "redsync@v4.0.3", "node-redisson@latest".
const VersionSeparator = "@"

// Latest, as a version, asks the library's registry for its newest stable
// release.
const Latest = "latest"

// ErrNoVersions is returned for NAME@VERSION when NAME runs one release
// only (lockcheck's own locks, a library from Debian's packages).
var ErrNoVersions = errors.New("runs one release only")

// ErrRelease is returned for a release that cannot be had: the registry does
// not serve it, or it could not be fetched or built here.
var ErrRelease = errors.New("release not available")

// Versions makes a subject runnable at any release of its library that its
// driver supports: NAME@VERSION, resolved by Registry.LookupContext.
type Versions struct {
	// Registry names where the releases come from and the package's name
	// there ("Maven Central org.redisson:redisson").
	Registry string
	// Pinned is the release the bare name runs: the one lockcheck pins and
	// tests, built by make deps.
	Pinned string
	// List returns the releases the registry serves, oldest first. It
	// asks the network and is bounded by ctx.
	List func(ctx context.Context) ([]string, error)
	// Has, when set, asks the registry for release v alone: a list may
	// leave out a release the registry serves (the Go module proxy's
	// @v/list omits some; @v/V.info answers for each). Bounded by ctx.
	Has func(ctx context.Context, v string) (bool, error)
	// Supports is the range of releases the driver supports, as measured
	// (docs/drivers.md): Resolve refuses a release outside it at once.
	Supports Range
	// HowToList says how to ask the registry by hand (for offline use).
	HowToList string
	// At returns the subject at release v (never Latest), fetching and
	// building it into the cache when it is not there yet. An error wraps
	// ErrRelease and names the release.
	At func(ctx context.Context, v string) (Subject, error)
}

// SplitVersion splits "NAME@VERSION" into NAME and VERSION; a name without
// VersionSeparator has version "". This is the one place a subject name's
// version is parsed.
func SplitVersion(name string) (base, version string) {
	base, version, _ = strings.Cut(name, VersionSeparator)
	return base, version
}

// resolveTimeout bounds Lookup's resolution of NAME@VERSION (a registry
// query, then a fetch and build when the release is not in the cache).
const resolveTimeout = 15 * time.Minute

// lookupVersion resolves NAME@VERSION: the bare subject when VERSION is
// its pinned release, else Versions.At (Latest first resolved to the
// registry's newest stable release).
func (r *Registry) lookupVersion(ctx context.Context, name string) (Subject, error) {
	base, v := SplitVersion(name)
	s, err := r.LookupContext(ctx, base)
	if err != nil {
		return Subject{}, err
	}
	if v == "" {
		return Subject{}, fmt.Errorf("%w: %q: no version after %q", ErrRelease, name, VersionSeparator)
	}
	if s.Versions == nil {
		return Subject{}, fmt.Errorf("%w: %s %s (no %s%s)", ErrRelease, base, ErrNoVersions, VersionSeparator, v)
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	if v, err = s.Versions.Resolve(ctx, name, v); err != nil {
		return Subject{}, err
	}
	if v == s.Versions.Pinned {
		return s, nil
	}
	return s.Versions.At(ctx, v)
}

// Resolve returns the release version names for the subject called name
// (NAME@VERSION, for errors): version itself, or, for Latest, the
// registry's newest stable release. A release outside Supports is refused
// (for a version given, before the registry is asked). An error wraps
// ErrRelease.
func (vs *Versions) Resolve(ctx context.Context, name, version string) (string, error) {
	if version != Latest {
		return version, vs.supported(name, version)
	}
	all, err := vs.List(ctx)
	if err != nil {
		return "", fmt.Errorf("%w: %s: cannot ask %s for its releases: %v (%s)", ErrRelease, name, vs.Registry, err, vs.HowToList)
	}
	v := NewestStable(all)
	if v == "" {
		return "", fmt.Errorf("%w: %s: %s lists no stable release", ErrRelease, name, vs.Registry)
	}
	return v, vs.supported(fmt.Sprintf("%s (%s)", name, v), v)
}

// Supported says the driver supports release v: the pinned one, or one
// within Supports.
func (vs *Versions) Supported(v string) bool {
	return v == vs.Pinned || vs.Supports.Contains(v)
}

// supported refuses release v of the subject called name (for the error)
// when it is not Supported: an error wrapping ErrRelease that names the
// range.
func (vs *Versions) supported(name, v string) error {
	if vs.Supported(v) {
		return nil
	}
	base, _ := SplitVersion(name)
	return fmt.Errorf("%w: %s is outside what the driver supports, %s; lockcheck subjects --versions %s marks each release", ErrRelease, name, vs.Supports, base)
}

// NewestStable returns the last of versions (oldest first) that is a
// release number and no pre-release (ReleaseNumber.Stable), or "".
func NewestStable(versions []string) string {
	for i := len(versions) - 1; i >= 0; i-- {
		if r, err := ParseRelease(versions[i]); err == nil && r.Stable() {
			return versions[i]
		}
	}
	return ""
}
