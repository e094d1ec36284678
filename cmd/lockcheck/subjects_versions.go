package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/lockcheck/lockcheck/workloads/releases"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// subjectVersions is `lockcheck subjects --versions NAME`: the releases of
// NAME's library that its registry serves (asked now, bounded by ctx), each
// marked supported by the driver or not, the pinned one and the supported
// range; offline, how to ask by hand.
func subjectVersions(ctx context.Context, e *env, name string, asJSON bool) (int, error) {
	v, err := releasesOf(ctx, name)
	if err != nil {
		return exitUsage, usagef("--versions: %v", err)
	}
	all, err := v.List(ctx)
	if err != nil {
		return exitUsage, fmt.Errorf("%s: cannot ask %s for its releases (%v); to ask by hand: %s", name, v.Registry, err, v.HowToList)
	}
	return exitValid, printVersions(e, name, v, all, asJSON)
}

// releasesOf is the release machinery of the subject called name (a
// semaphore's or latch's too): an error, a usage error, when it names no
// subject or one that runs one release only.
func releasesOf(ctx context.Context, name string) (*subject.Versions, error) {
	v, err := releases.VersionsOf(ctx, name)
	if err != nil {
		return nil, usageError{err}
	}
	return v, nil
}

// releaseMark is one release the registry serves, as --versions --json
// gives it.
type releaseMark struct {
	Release   string `json:"release"`
	Supported bool   `json:"supported"`
}

// printVersions prints all, the releases v's registry serves (oldest
// first), each marked supported or not by v.Supports: as JSON, or a line
// saying what the driver supports, then the supported releases and the
// others on a line each.
func printVersions(e *env, name string, v *subject.Versions, all []string, asJSON bool) error {
	marks := make([]releaseMark, len(all))
	var in, out []string
	for i, r := range all {
		marks[i] = releaseMark{r, v.Supported(r)}
		if marks[i].Supported {
			in = append(in, r)
		} else {
			out = append(out, r)
		}
	}
	latest := subject.NewestStable(all)
	if asJSON {
		return printJSON(e, struct {
			Subject  string        `json:"subject"`
			Registry string        `json:"registry"`
			Pinned   string        `json:"pinned"`
			Latest   string        `json:"latest"`
			Supports string        `json:"supports"`
			Min      string        `json:"min,omitempty"`
			Max      string        `json:"max,omitempty"`
			Releases []releaseMark `json:"releases"`
		}{name, v.Registry, v.Pinned, latest, v.Supports.String(), v.Supports.Min, v.Supports.Max, marks})
	}
	if latest != "" && !v.Supported(latest) {
		latest += ", which it does not support"
	}
	fmt.Fprintf(e.stdout, "%s: %s serves %d releases (oldest first); lockcheck pins %s, %s@latest is %s; the driver supports %s\n",
		name, v.Registry, len(all), v.Pinned, name, latest, v.Supports)
	fmt.Fprintf(e.stdout, "supported (%d): %s\n", len(in), strings.Join(in, " "))
	if len(out) > 0 {
		fmt.Fprintf(e.stdout, "not supported, refused (%d): %s\n", len(out), strings.Join(out, " "))
	}
	return nil
}
