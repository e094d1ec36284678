package results

import "runtime/debug"

// BuildCommit is the VCS revision the running binary was built from, as
// the Go toolchain stamped it (debug.ReadBuildInfo's vcs.revision, with
// " (modified)" when the work tree had changes): what a run records as the
// lockcheck that made it. "" when the binary records none (a test binary,
// a build with -buildvcs=false or outside a repository).
func BuildCommit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return commitOf(bi.Settings)
}

// commitOf is BuildCommit for the build settings s.
func commitOf(s []debug.BuildSetting) string {
	rev, modified := "", false
	for _, kv := range s {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			modified = kv.Value == "true"
		}
	}
	if rev != "" && modified {
		rev += " (modified)"
	}
	return rev
}
