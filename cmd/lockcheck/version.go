package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// versionCmd is `lockcheck version`: the module version, the Go version and
// the VCS revision the binary was built from (debug.ReadBuildInfo), so that a
// nightly job can record exactly what judged its runs.
func versionCmd(_ context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "version", "version", "  lockcheck version\n")
	if err := parseFlags(fs, args, 0); err != nil {
		return exitUsage, err
	}
	bi, _ := debug.ReadBuildInfo()
	writeVersion(e.stdout, bi)
	return exitValid, nil
}

// writeVersion prints bi (nil: no build information) as
//
//	lockcheck (devel) github.com/lockcheck/lockcheck
//	go        go1.26.8 linux/amd64
//	revision  0123abcd… (2026-11-22T04:17:39Z, modified)
//
// with "unknown" for what bi does not record.
func writeVersion(w io.Writer, bi *debug.BuildInfo) {
	version, path, goVersion := "unknown", "github.com/lockcheck/lockcheck", runtime.Version()
	rev, when, modified := "unknown", "", ""
	if bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.Main.Path != "" {
			path = bi.Main.Path
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = "modified"
				}
			}
		}
	}
	fmt.Fprintf(w, "lockcheck %s %s\n", version, path)
	fmt.Fprintf(w, "go        %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	detail := when
	if modified != "" {
		if detail != "" {
			detail += ", "
		}
		detail += modified
	}
	if detail != "" {
		rev += " (" + detail + ")"
	}
	fmt.Fprintf(w, "revision  %s\n", rev)
}
