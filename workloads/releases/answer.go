package releases

import (
	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Answer is what is known of one release.
type Answer struct {
	Library  string `json:"library"`
	Registry string `json:"registry"`
	Supports string `json:"supports"`
	Row
	// Has, Open, OpenMaybe and Maybe are the bugs of Row's Standing,
	// whole.
	Has       []rediscover.Bug `json:"has_bugs,omitempty"`
	Open      []rediscover.Bug `json:"open_bugs,omitempty"`
	OpenMaybe []rediscover.Bug `json:"open_may_have_bugs,omitempty"`
	Maybe     []rediscover.Bug `json:"may_have_bugs,omitempty"`
	// Suggest is the nearest release without any known bug (Suggest);
	// "" when the release is such a one itself, or when none exists
	// (NoneClean).
	Suggest   string `json:"suggest,omitempty"`
	NoneClean bool   `json:"none_without_known_bugs,omitempty"`
}

// Answer answers for release v, which the registry must serve or the
// catalog name, and the driver support. An error wraps ErrInput.
func (t Table) Answer(v string) (Answer, error) {
	row, ok := t.Row(v)
	if !ok {
		row = t.row(v)
	}
	switch {
	case !row.Served && !row.Catalogued:
		return Answer{}, inputf("unknown version %s@%s: %s does not serve it (lockcheck subjects --versions %s)", t.Library, v, t.Registry, t.Library)
	case !row.Supported:
		return Answer{}, inputf("%s@%s is outside what the driver supports, %s; its row of lockcheck releases %s lists its known bugs", t.Library, v, t.Supports, t.Library)
	}
	a := Answer{Library: t.Library, Registry: t.Registry, Supports: t.Supports, Row: row}
	a.Has, a.Open, a.OpenMaybe, a.Maybe = t.bugs(row.Has), t.bugs(row.Open), t.bugs(row.OpenMaybe), t.bugs(row.Maybe)
	if !row.Clean() {
		a.Suggest = t.Suggest(v)
		a.NoneClean = a.Suggest == ""
	}
	return a, nil
}

// bugs are the bugs called ids.
func (t Table) bugs(ids []string) []rediscover.Bug {
	var out []rediscover.Bug
	for _, id := range ids {
		out = append(out, t.Bug(id))
	}
	return out
}

// Suggest is the nearest release after v that the registry serves and
// that has, and may have, none of the known bugs: the newest patch of
// v's minor line when it is newer than v, else the newest patch of the
// next line that is such a one; "" when none is.
func (t Table) Suggest(v string) string {
	l := line(v)
	var best *Row
	for i := range t.Rows {
		r := &t.Rows[i]
		if !r.Newest || !r.Served || !r.Clean() || subject.CompareReleases(r.Release, v) <= 0 {
			continue
		}
		if r.Line == l {
			return r.Release
		}
		if best == nil || subject.CompareReleases(r.Release, best.Release) < 0 {
			best = r
		}
	}
	if best == nil {
		return ""
	}
	return best.Release
}
