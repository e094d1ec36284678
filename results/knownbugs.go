package results

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/lockcheck/lockcheck/model"
)

// KnownRepro is one library-alone script of the catalog of known bugs
// (known-bugs.json, its "alone" list): a script that shows a finding
// against the library alone, with no lockcheck and no adapter.
type KnownRepro struct {
	// Subjects are the subjects, as a scoreboard names them, whose
	// finding the script shows ("redisson@3.43.0", and "redisson-3.43" as
	// scoreboards before NAME@VERSION named that release).
	Subjects []string `json:"subjects"`
	// Checkers are the checkers that see the finding.
	Checkers []string `json:"checkers"`
	Script   string   `json:"script"`
	Claim    string   `json:"claim"`
	// Bug, when set, is the ID of the catalog's bug the script shows.
	Bug string `json:"bug,omitempty"`
	// Signatures are those of the violations the script shows, for a
	// script that shows no catalogued bug (else its bug's signatures).
	Signatures []model.Signature `json:"signatures,omitempty"`
}

// Findings are r's findings: one per subject and checker, in that order,
// each matched by sigs (r's own Signatures when it has some).
func (r KnownRepro) Findings(sigs []model.Signature) []KnownFinding {
	if len(r.Signatures) > 0 {
		sigs = r.Signatures
	}
	var fs []KnownFinding
	for _, s := range r.Subjects {
		for _, c := range r.Checkers {
			fs = append(fs, KnownFinding{Subject: s, Checker: c, Script: r.Script, Claim: r.Claim, Signatures: sigs})
		}
	}
	return fs
}

// knownBugs is the catalog of known bugs, read by lockcheck rediscover
// (workloads/rediscover owns the bugs' schema) and by the scoreboard (the
// "alone" list).
//
//go:embed known-bugs.json
var knownBugs []byte

// KnownFindings are the library-alone scripts of the catalog of known bugs
// (known-bugs.json), one per subject and checker.
var KnownFindings = mustKnownFindings(knownBugs)

// ParseKnownFindings reads the "alone" list of a catalog of known bugs,
// each script matched by its bug's signatures (or its own).
func ParseKnownFindings(catalog []byte) ([]KnownFinding, error) {
	var c struct {
		Bugs []struct {
			ID             string            `json:"id"`
			Signature      model.Signature   `json:"signature"`
			AlsoSignatures []model.Signature `json:"also_signatures"`
		} `json:"bugs"`
		Alone []KnownRepro `json:"alone"`
	}
	if err := json.Unmarshal(catalog, &c); err != nil {
		return nil, fmt.Errorf("known bugs: %w", err)
	}
	sigs := map[string][]model.Signature{}
	for _, b := range c.Bugs {
		if b.Signature.Class != "" {
			sigs[b.ID] = append([]model.Signature{b.Signature}, b.AlsoSignatures...)
		}
	}
	var fs []KnownFinding
	for _, r := range c.Alone {
		fs = append(fs, r.Findings(sigs[r.Bug])...)
	}
	return fs, nil
}

// mustKnownFindings is ParseKnownFindings of the embedded catalog, which
// workloads/rediscover's tests validate.
func mustKnownFindings(catalog []byte) []KnownFinding {
	fs, err := ParseKnownFindings(catalog)
	if err != nil {
		panic(err)
	}
	return fs
}
