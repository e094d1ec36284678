package results

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/lockcheck/lockcheck/model"
)

// Summary is one subject's run: what ran, what the checkers said and the
// figures. It is the content of result.json and one row of the summary table.
type Summary struct {
	Subject string `json:"subject"`
	// Release is the release of its library the subject ran ("4.7.0";
	// "" when not known without starting it).
	Release  string `json:"release,omitempty"`
	Workload string `json:"workload"`
	// Seed is the run's seed (0 when not known).
	Seed   int64        `json:"seed,omitempty"`
	Report model.Report `json:"report"`
	// Signatures are the distinct signatures of the report's violations
	// (model.Report.Signatures): what later tools (rediscover, bisect,
	// replays) compare a run with a bug by.
	Signatures []model.Signature `json:"signatures,omitempty"`
	Stats      Stats             `json:"stats"`
	// Expected is the run's expectation and whether the report meets it
	// (a scenario run's; nil for a run that expects every verdict valid).
	Expected *Judgement `json:"expected,omitempty"`
	// Parts split a mixed fleet's figures by implementation (nil for one).
	Parts []Part `json:"parts,omitempty"`
}

// Summarize computes the summary of one subject's run from its history and
// the checkers' report.
func Summarize(subject, release, workload string, seed int64, h *model.History, rep model.Report) Summary {
	return Summary{Subject: subject, Release: release, Workload: workload, Seed: seed, Report: rep, Signatures: rep.Signatures(),
		Stats: ComputeStats(h), Parts: ComputeParts(h)}
}

// SubjectRelease is the subject's name with its release, "NAME (RELEASE)",
// unless the name already ends in "@RELEASE" or the release is unknown.
func (s Summary) SubjectRelease() string {
	if s.Release == "" || strings.HasSuffix(s.Subject, "@"+s.Release) {
		return s.Subject
	}
	return s.Subject + " (" + s.Release + ")"
}

// Verdict is the run's combined verdict (the report's).
func (s Summary) Verdict() model.Verdict { return s.Report.Verdict }

// WriteJSON writes the summaries as one indented JSON array.
func WriteJSON(w io.Writer, sums []Summary) error {
	if sums == nil {
		sums = []Summary{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sums)
}
