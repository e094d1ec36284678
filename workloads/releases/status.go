package releases

import (
	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Status is how one release stands to one catalogued bug.
type Status string

const (
	// Without: the release does not have the bug (it has its fix, or
	// comes before the release that introduced it).
	Without Status = "without"
	// Has: the release has the bug: from its introduction (when the
	// catalog knows it, else its last buggy release) up to its fix.
	Has Status = "has"
	// Open: the release has a bug no release has fixed: from its
	// introduction (else its first buggy release) onwards.
	Open Status = "open"
	// Maybe: the release comes before the bug's last buggy release and the
	// catalog does not say when the bug began: it may have it.
	Maybe Status = "may have"
)

// StatusAt says how release v stands to bug b, from b's releases alone:
// Fixed and later are Without; an open bug is Open from Introduced (else
// Buggy) on; a fixed one is Has from Introduced (else Buggy) up to Fixed,
// and Maybe before Buggy when Introduced is not known.
func StatusAt(b rediscover.Bug, v string) Status {
	if !b.Open() && subject.CompareReleases(v, b.Fixed) >= 0 {
		return Without
	}
	first := b.Introduced
	if first == "" && b.Open() {
		first = b.Buggy
	}
	switch {
	case first != "" && subject.CompareReleases(v, first) < 0:
		return Without
	case b.Open():
		return Open
	case first != "" || subject.CompareReleases(v, b.Buggy) >= 0:
		return Has
	}
	return Maybe
}

// Standing is the bugs of one release, by Status (bug IDs, in the
// catalog's order).
type Standing struct {
	Has   []string `json:"has,omitempty"`
	Open  []string `json:"open,omitempty"`
	Maybe []string `json:"may_have,omitempty"`
}

// standing is release v's Standing against bugs.
func standing(bugs []rediscover.Bug, v string) Standing {
	var s Standing
	for _, b := range bugs {
		switch StatusAt(b, v) {
		case Has:
			s.Has = append(s.Has, b.ID)
		case Open:
			s.Open = append(s.Open, b.ID)
		case Maybe:
			s.Maybe = append(s.Maybe, b.ID)
		}
	}
	return s
}

// Clean says the release has, and may have, none of the known bugs.
func (s Standing) Clean() bool { return len(s.Has)+len(s.Open)+len(s.Maybe) == 0 }
