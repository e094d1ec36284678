package results

import (
	"runtime/debug"
	"strings"
)

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

// ShortCommit is commit (as BuildCommit gives it) cut to the 12 hex digits
// a page states, "commit 0123456789ab", its " (modified)" kept; "" for "".
func ShortCommit(commit string) string {
	rev, modified, _ := strings.Cut(commit, " ")
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified != "" {
		rev += " " + modified
	}
	return rev
}

// AtCommit is " at commit C" for a page's statement of when and where it
// was made (C: ShortCommit of commit), or "" when commit is "".
func AtCommit(commit string) string {
	if commit == "" {
		return ""
	}
	return " at commit " + ShortCommit(commit)
}
