package rediscover

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/lockcheck/lockcheck/model"
)

// Merge joins the reports of rediscoveries run with the same settings
// (seed, budget, run length) over parts of the catalog, as runs side by
// side make them: the rows in the order given, a bug found in several
// reports keeping its last row (but a row of a release not run, such as a
// merged page's Cover rows, replaces none that was hunted), and the totals
// counted again. Reports of other settings are refused (ErrConfig): one
// page states one budget and one seed.
func Merge(reps ...*Report) (*Report, error) {
	if len(reps) == 0 {
		return nil, fmt.Errorf("%w: no report to merge", ErrConfig)
	}
	first := reps[0]
	out := &Report{Seed: first.Seed, Budget: first.Budget, RunDuration: first.RunDuration}
	at := map[string]int{}
	for i, rep := range reps {
		if rep.Seed != first.Seed || rep.Budget != first.Budget || rep.RunDuration != first.RunDuration {
			return nil, fmt.Errorf("%w: report %d has seed %d, budget %v, runs of %v; report 1 has seed %d, budget %v, runs of %v",
				ErrConfig, i+1, rep.Seed, rep.Budget, rep.RunDuration, first.Seed, first.Budget, first.RunDuration)
		}
		for _, row := range rep.Rows {
			if j, ok := at[row.Bug.ID]; ok {
				if row.Buggy.NotRun == "" || out.Rows[j].Buggy.NotRun != "" {
					out.Rows[j] = row // a row not run (Cover's) replaces no hunted one
				}
				continue
			}
			at[row.Bug.ID] = len(out.Rows)
			out.Rows = append(out.Rows, row)
		}
	}
	out.total()
	return out, nil
}

// Rejudge judges rep's rows again against all (the catalog as it is now:
// the bugs' signatures, a fixed release's other known bugs, a trigger
// marked missing), where a row's bug is among them, and counts the
// totals again. The hunts' finds are kept, each sorted again by its
// signatures: the first with the bug's is the find, the others (and
// those allowed by their fault) are matched with the release's other
// known bugs (knownAt). A contrast is kept while its find is the bug's
// find, its hits counted again from the replays' signatures, or, recorded
// without them, while the bug's signatures are those it counted with; it
// is dropped otherwise (AddContrasts replays it again). A row whose bug
// the catalog no longer holds (renamed or withdrawn) is dropped: the page
// lists the catalog's bugs only.
func (rep *Report) Rejudge(all []Bug) {
	byID := map[string]Bug{}
	for _, b := range all {
		byID[b.ID] = b
	}
	rows := rep.Rows[:0]
	for _, r := range rep.Rows {
		b, ok := byID[r.Bug.ID]
		if !ok {
			continue
		}
		before, find := r.Bug, r.Buggy.Find
		r.Bug = b
		wants := [2]sought{soughtAt(all, b, SideBuggy), soughtAt(all, b, SideFixed)}
		r.Buggy.sortFinds(wants[0])
		r.Fixed.sortFinds(wants[1])
		wants = replayed(r.Buggy.Find, wants)
		if c := r.Contrast; c != nil && (!sameFind(find, r.Buggy.Find) || !c.recount(wants) && !sameSignatures(before, b)) {
			r.Contrast = nil
		}
		r.judge()
		rows = append(rows, r)
	}
	rep.Rows = rows
	rep.total()
}

// sortFinds sorts h's finds that count again by want: the first want
// claims is Find, the rest are Others; each, and each find
// allowed by its fault, with the other known bug its signatures match.
func (h *Hunted) sortFinds(want sought) {
	finds := h.counted()
	h.Find, h.Others = nil, nil
	for _, f := range finds {
		f.Known = knownMatch(want.known, f.Signatures)
		if h.Find == nil && want.wants(f.Signatures) {
			h.Find = &f
			continue
		}
		h.Others = append(h.Others, f)
	}
	for i := range h.Allowed {
		h.Allowed[i].Known = knownMatch(want.known, h.Allowed[i].Signatures)
	}
	h.promoteShared(want)
}

// promoteShared makes the first of h's other finds that has the bug's
// signature where a shared bug has it too (sought.ambiguous) its find,
// marked with that bug (Finding.SharedWith), when h has no find its
// signatures claim: the replays decide whether it tells the releases
// apart.
func (h *Hunted) promoteShared(want sought) {
	if h.Find != nil {
		h.Find.SharedWith = ""
		return
	}
	for i, f := range h.Others {
		if want.ambiguous(f.Signatures) {
			f.SharedWith = knownMatch(want.shared, f.Signatures)
			h.Find = &f
			h.Others = slices.Delete(h.Others, i, i+1)
			return
		}
	}
}

// Cover adds a row for each of bugs that rep has none of, not run
// (why says why), so that a page of rep lists the whole catalog, and
// counts the totals again.
func (rep *Report) Cover(bugs []Bug, why string) {
	have := map[string]bool{}
	for _, r := range rep.Rows {
		have[r.Bug.ID] = true
	}
	for _, b := range bugs {
		if have[b.ID] {
			continue
		}
		row := Row{Bug: b, Buggy: Hunted{Release: Release{NotRun: why}}, Fixed: Hunted{Release: Release{NotRun: why}}}
		row.judge()
		rep.Rows = append(rep.Rows, row)
	}
	rep.total()
}

// ReadJSON reads a report as WriteJSON wrote it.
func ReadJSON(r io.Reader) (*Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("rediscover report: %w", err)
	}
	return &rep, nil
}

// sameFind reports whether a and b are the same find (its run and seed).
func sameFind(a, b *Finding) bool {
	return a != nil && b != nil && a.Run == b.Run && a.Seed == b.Seed
}

// sameSignatures reports whether a and b match the same signatures.
func sameSignatures(a, b Bug) bool {
	return a.Signature.String() == b.Signature.String() && slices.EqualFunc(a.AlsoSignatures, b.AlsoSignatures,
		func(x, y model.Signature) bool { return x.String() == y.String() })
}
