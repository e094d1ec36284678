package matrix

import (
	"context"
	"time"

	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// versionTimeout bounds reading one subject's version (a JVM's start).
const versionTimeout = 30 * time.Second

// Describe describes subjects for matrix.json: their claims, and the
// library and version each runs (a driver's banner, a Go module's); a
// version that cannot be read is recorded with why.
func Describe(ctx context.Context, subjects []subject.Subject) []results.SubjectInfo {
	var out []results.SubjectInfo
	for _, s := range subjects {
		si := results.SubjectInfo{Name: s.Name, Kind: string(s.Kind), Doc: s.Doc, Claims: claims(s), Version: s.Release}
		if s.Version != nil {
			vctx, cancel := context.WithTimeout(ctx, versionTimeout)
			var err error
			si.Library, si.Version, err = s.Version(vctx)
			cancel()
			if err != nil {
				si.VersionError = err.Error()
			}
		}
		out = append(out, si)
	}
	return out
}

// claims lists what s claims (results.Claim*).
func claims(s subject.Subject) []string {
	var c []string
	for _, x := range []struct {
		has   bool
		claim string
	}{{s.Reentrant, results.ClaimReentrant}, {s.Fair, results.ClaimFair}, {s.Fenced, results.ClaimFenced}, {!s.NoWatchdog, results.ClaimWatchdog}} {
		if x.has {
			c = append(c, x.claim)
		}
	}
	return c
}
