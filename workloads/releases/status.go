package releases

import (
	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Status is how one release stands to one catalogued bug.
type Status string

const (
	// Without: the release does not have the bug (it has its fix, or
	// comes before Since, the release that brought it).
	Without Status = "without"
	// Has: the release has a fixed bug: from Since (or, not known, from
	// its last buggy release) up to its fix.
	Has Status = "has"
	// Open: the release has a bug no release has fixed: from Since on
	// (or, not known, at its buggy release, the newest known to have it).
	Open Status = "open"
	// OpenMaybe: the release comes after the newest release known to have
	// an open bug whose Since the catalog does not know: no release
	// fixes it, so it may have it still.
	OpenMaybe Status = "open (may have)"
	// Maybe: the release comes before the bug's buggy release and the
	// catalog does not say when the bug began: it may have it.
	Maybe Status = "may have"
)

// StatusAt says how release v stands to bug b, from b's releases alone.
// A fixed bug: Without from Fixed on and before Since; Has from Since (or,
// without one, from Buggy) up to Fixed; Maybe before Buggy when Since is
// not known. An open bug (no Fixed): Without before Since and Open from
// Since on; without a Since, Maybe before Buggy, Open at Buggy (the
// catalog says it has it), and OpenMaybe past it.
func StatusAt(b rediscover.Bug, v string) Status {
	if !b.Open() && subject.CompareReleases(v, b.Fixed) >= 0 {
		return Without
	}
	if b.Since != "" {
		if subject.CompareReleases(v, b.Since) < 0 {
			return Without
		}
		if b.Open() {
			return Open
		}
		return Has
	}
	switch c := subject.CompareReleases(v, b.Buggy); {
	case c < 0:
		return Maybe
	case !b.Open():
		return Has
	case c == 0:
		return Open
	}
	return OpenMaybe
}

// Standing is the bugs of one release, by Status (bug IDs, in the
// catalog's order).
type Standing struct {
	Has  []string `json:"has,omitempty"`
	Open []string `json:"open,omitempty"`
	// OpenMaybe are the open bugs it may have (StatusAt's OpenMaybe).
	OpenMaybe []string `json:"open_may_have,omitempty"`
	Maybe     []string `json:"may_have,omitempty"`
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
		case OpenMaybe:
			s.OpenMaybe = append(s.OpenMaybe, b.ID)
		case Maybe:
			s.Maybe = append(s.Maybe, b.ID)
		}
	}
	return s
}

// Clean says the release has, and may have, none of the known bugs.
func (s Standing) Clean() bool {
	return len(s.Has)+len(s.Open)+len(s.OpenMaybe)+len(s.Maybe) == 0
}
