package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// subjectVersions is `lockcheck subjects --versions NAME`: the releases of
// NAME's library that its registry serves (asked now, bounded by ctx), the
// pinned one and the range the driver supports; offline, how to ask by
// hand.
func subjectVersions(ctx context.Context, e *env, name string, asJSON bool) (int, error) {
	v := permits.Versions(name)
	if !permits.Known(name) {
		s, err := catalog.Subjects.LookupContext(ctx, name)
		if err != nil {
			return exitUsage, usagef("--versions: %v", err)
		}
		v = s.Versions
	}
	if v == nil {
		return exitUsage, usagef("--versions: %s %v: it has no NAME@VERSION", name, subject.ErrNoVersions)
	}
	all, err := v.List(ctx)
	if err != nil {
		return exitUsage, fmt.Errorf("%s: cannot ask %s for its releases (%v); to ask by hand: %s", name, v.Registry, err, v.HowToList)
	}
	if asJSON {
		return exitValid, printJSON(e, struct {
			Subject  string   `json:"subject"`
			Registry string   `json:"registry"`
			Pinned   string   `json:"pinned"`
			Latest   string   `json:"latest"`
			Supports string   `json:"supports"`
			Releases []string `json:"releases"`
		}{name, v.Registry, v.Pinned, subject.NewestStable(all), v.Supports, all})
	}
	fmt.Fprintf(e.stdout, "%s: %s serves %d releases (oldest first); lockcheck pins %s, %s@latest is %s; the driver supports %s\n",
		name, v.Registry, len(all), v.Pinned, name, subject.NewestStable(all), v.Supports)
	fmt.Fprintln(e.stdout, strings.Join(all, " "))
	return exitValid, nil
}
