// Package rediscover hunts the known bugs of real releases again. For each
// entry of the catalog of known bugs (results/known-bugs.json) it hunts the
// buggy release with the hunt's general scenario mix and plans (package
// hunt's defaults: no hint, no scenario chosen for the bug), then the fixed
// release under the same seed and budget, and says whether the bug was
// found, how soon, in which class, and whether the fixed release stayed
// clean. It prints nothing: cmd/lockcheck prints.
package rediscover

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

// ErrCatalog marks a catalog that does not parse or breaks its schema; the
// error names the entry and the field.
var ErrCatalog = errors.New("known bugs: bad catalog")

// ErrUnknownBug marks a bug ID that the catalog does not hold.
var ErrUnknownBug = errors.New("unknown bug")

// Bug is one known bug of a released lock library: the last release that
// has it, the first that does not, and the sources that say so.
type Bug struct {
	// ID names the bug on the command line (--bugs): lowercase letters,
	// digits, dots and dashes.
	ID string `json:"id"`
	// Library is the library as its users know it ("Redisson").
	Library string `json:"library"`
	// Subject is lockcheck's subject name of the library's lock, without a
	// version: SUBJECT@VERSION names a release (Release).
	Subject string `json:"subject"`
	// Buggy is the last release with the bug, Fixed the first without it
	// (Buggy < Fixed); both are served by the library's registry. An open
	// bug, which no release has fixed, has no Fixed: Buggy is then the
	// newest release known to have it, and Upstream the issue that tracks
	// it.
	Buggy string `json:"buggy"`
	Fixed string `json:"fixed,omitempty"`
	// Since, when known, is the first release with the bug (Since <=
	// Buggy): the release that brought it.
	Since string `json:"since,omitempty"`
	// SinceSources show Since, required with it: an upstream statement
	// ("regression since X"), the commit that brought the bug (with the
	// first release tag that contains it), or a bisection's result
	// (`lockcheck bisect --bug ID --json`, committed under results/): https
	// URLs or paths in this repository.
	SinceSources []string `json:"since_sources,omitempty"`
	// Upstream is the https URL of the upstream issue (or, lacking one,
	// the source that shows it) of an open bug; required when Fixed is "".
	Upstream string `json:"upstream,omitempty"`
	// Sources are the changelog line, issue, pull request or commit that
	// state the bug and its fix (https URLs; at least one).
	Sources []string `json:"sources"`
	// Says is what the first source says of the fix (of an open bug: of
	// the bug), quoted, or in brief where it has no line to quote.
	Says string `json:"says"`
	// Property is the class of the property the bug breaks (model.Class:
	// safety, refusal, contract, fairness, liveness); Breaks says how, in
	// words.
	Property model.Class `json:"property"`
	Breaks   string      `json:"breaks"`
	// Signature is what a run that shows the bug has among its violations'
	// signatures (model.Signature, a pattern: fields may be open); its
	// class is Property. A find counts for the bug only when one of its
	// signatures matches.
	Signature model.Signature `json:"signature"`
	// AlsoSignatures are the other anomalies the same defect produces,
	// each of its own class: an unlock that answers ok whatever happened
	// is an unlock after a lapse while nobody holds the lock (contract),
	// and a foreign release while another process holds it (safety). A
	// find with one of them is the bug's too.
	AlsoSignatures []model.Signature `json:"also_signatures,omitempty"`
	// Trigger is what makes the bug show, in words.
	Trigger string `json:"trigger"`
	// Missing, when set, is what lockcheck lacks to produce the trigger
	// (or to check the property); "" when it can produce it.
	Missing string `json:"missing,omitempty"`
	// KnownInFixed are the IDs of other catalog entries the fixed release
	// still has (an open bug among them), which the hunt's general mix may
	// find there: a find on the fixed release is theirs only when it
	// matches one of their signatures.
	KnownInFixed []string `json:"known_in_fixed,omitempty"`
}

// Matches reports whether one of sigs is the bug's: its signature or one
// of AlsoSignatures.
func (b Bug) Matches(sigs ...model.Signature) bool {
	if b.Signature.MatchesAny(sigs) {
		return true
	}
	for _, a := range b.AlsoSignatures {
		if a.MatchesAny(sigs) {
			return true
		}
	}
	return false
}

// Producible reports whether lockcheck can produce the bug's trigger.
func (b Bug) Producible() bool { return b.Missing == "" }

// Open reports whether no release has fixed the bug.
func (b Bug) Open() bool { return b.Fixed == "" }

// Release is SUBJECT@VERSION, the subject name of one release of b's lock.
func (b Bug) Release(version string) string { return b.Subject + "@" + version }

// Catalog is the file of known bugs.
type Catalog struct {
	// Doc says what the file is, for a reader of the JSON.
	Doc  string `json:"doc,omitempty"`
	Bugs []Bug  `json:"bugs"`
	// Alone are the scripts that show a finding against the library
	// alone, which the scoreboard reads (results.KnownFindings).
	Alone []results.KnownRepro `json:"alone,omitempty"`
}

// LoadFile reads and validates the catalog at path.
func LoadFile(path string) (Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Catalog{}, err
	}
	c, err := Parse(data)
	if err != nil {
		return Catalog{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes a catalog (unknown fields are errors) and validates it.
func Parse(data []byte) (Catalog, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Catalog
	if err := dec.Decode(&c); err != nil {
		return Catalog{}, fmt.Errorf("%w: %v", ErrCatalog, err)
	}
	return c, c.Validate()
}

// Select returns the bugs named by ids, in the order given; no ids: all.
// An ID the catalog lacks is an error wrapping ErrUnknownBug.
func (c Catalog) Select(ids []string) ([]Bug, error) {
	if len(ids) == 0 {
		return c.Bugs, nil
	}
	byID := make(map[string]Bug, len(c.Bugs))
	for _, b := range c.Bugs {
		byID[b.ID] = b
	}
	out := make([]Bug, 0, len(ids))
	for _, id := range ids {
		b, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownBug, id, strings.Join(c.IDs(), ", "))
		}
		out = append(out, b)
	}
	return out, nil
}

// IDs are the catalog's bug IDs, in its order.
func (c Catalog) IDs() []string {
	ids := make([]string, len(c.Bugs))
	for i, b := range c.Bugs {
		ids[i] = b.ID
	}
	return ids
}
