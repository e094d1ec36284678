package main

import (
	"slices"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/rediscover"
)

// matcher is the predicate of find's bisection: the catalog bug's
// signatures when --bug names one, the --signature patterns when given,
// the find's own otherwise.
func (find bisectFind) matcher() func(hunt.Trial) bool {
	switch {
	case find.bug != nil:
		return bugMatcher(*find.bug)
	case len(find.patterns) > 0:
		return patternMatcher(find.patterns)
	}
	return findMatcher(find.report)
}

// bugMatcher says a replay shows bug when one of its violations'
// signatures is the bug's (rediscover.Bug.Matches): the rule by which
// `lockcheck rediscover` counts a find for a bug, so that another bug of
// the same release, met on the way, is not taken for it. A scenario's
// replay counts whatever the scenario expects: an unsafe scenario expects
// violations, and the bug's is among them or not.
func bugMatcher(bug rediscover.Bug) func(hunt.Trial) bool {
	return func(t hunt.Trial) bool {
		return bug.Matches(t.Report.Signatures()...)
	}
}

// findMatcher is the predicate by which `lockcheck bisect` says a replay
// shows the find whose checkers' report is find: the one place it defines
// "the same find". A replay shows the find when it is a find
// (hunt.Trial.Find: an invalid plain run, a scenario's verdict not the
// expected one) and one of its violations' signatures fits the pattern
// of one of find's (model.Signature.Replayed: the same class, shape and
// ops, beyond a fault when the find was). A find with no violation (a
// scenario's verdict short of the one it expects) matches any find; so
// does every find when there is no report (a find given as a plan and a
// seed).
func findMatcher(find *model.Report) func(hunt.Trial) bool {
	var want []model.Signature
	if find != nil {
		for _, s := range find.Signatures() {
			want = append(want, s.Replayed())
		}
	}
	return patternMatcher(want)
}

// patternMatcher says a replay shows the find when it is a find and one
// of its violations' signatures fits one of want (model.Signature.Matches);
// with no pattern, every find does.
func patternMatcher(want []model.Signature) func(hunt.Trial) bool {
	return func(t hunt.Trial) bool {
		if !t.Find {
			return false
		}
		if len(want) == 0 {
			return true
		}
		got := t.Report.Signatures()
		return slices.ContainsFunc(want, func(p model.Signature) bool { return p.MatchesAny(got) })
	}
}
