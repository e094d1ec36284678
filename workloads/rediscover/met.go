package rediscover

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// Met is one distinct signature a release's hunts met, and when first.
type Met struct {
	Signature model.Signature `json:"signature"`
	// Run and Detection are those of the first find that had it; Known
	// the catalog bug it matched ("" none); Counts whether that find
	// counted (Class.Counts).
	Run       int           `json:"run"`
	Detection time.Duration `json:"detection_ns"`
	Known     string        `json:"known,omitempty"`
	Counts    bool          `json:"counts"`
}

// counted are h's finds that count, the bug's and the others, in run
// order.
func (h Hunted) counted() []Finding {
	out := slices.Clone(h.Others)
	if h.Find != nil {
		out = append(out, *h.Find)
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Run - b.Run })
	return out
}

// Met lists every distinct signature h's finds had, those allowed by
// their fault and those not told apart among them, each with its first run
// and time, in the order met.
func (h Hunted) Met() []Met {
	all := slices.Concat(h.counted(), h.Allowed, h.Untold)
	slices.SortStableFunc(all, func(a, b Finding) int { return a.Run - b.Run })
	seen := map[string]bool{}
	var out []Met
	for _, f := range all {
		for _, s := range f.Signatures {
			if k := s.String(); !seen[k] {
				seen[k] = true
				out = append(out, Met{Signature: s, Run: f.Run, Detection: f.Detection, Known: f.Known, Counts: f.Class.Counts()})
			}
		}
	}
	return out
}

// writeMet writes, for each row whose hunts met a signature, every
// distinct one with its first run and time.
func writeMet(b *strings.Builder, rows []Row) {
	head := false
	for _, r := range rows {
		for _, side := range []struct {
			name string
			h    Hunted
		}{{"buggy", r.Buggy}, {"fixed", r.Fixed}} {
			met := side.h.Met()
			if len(met) == 0 {
				continue
			}
			if !head {
				b.WriteString("\nSignatures met by each hunt, with the first run and the time to it (a hunt goes on past another catalogued bug of the release):\n\n")
				head = true
			}
			var parts []string
			for _, m := range met {
				p := fmt.Sprintf("`%s` run %d, %v", m.Signature, m.Run, m.Detection.Round(time.Second))
				bugs := m.Signature.String() == r.Bug.Signature.String() || r.Bug.Matches(m.Signature)
				switch {
				case bugs && m.Known != "":
					p += " (the bug's, in a find counted as " + m.Known + "'s)"
				case bugs:
					p += " (the bug's)"
				case m.Known != "":
					p += " (" + m.Known + ")"
				case !m.Counts:
					p += " (allowed by its fault)"
				}
				parts = append(parts, p)
			}
			fmt.Fprintf(b, "- `%s`, %s %s: %s\n", r.Bug.ID, side.name, side.h.Name, strings.Join(parts, "; "))
		}
	}
}
