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
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
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
	// bug, which no release has fixed, has no Fixed; its Buggy is then the
	// first release known to have it (Open).
	Buggy string `json:"buggy"`
	Fixed string `json:"fixed,omitempty"`
	// Introduced, when known, is the first release with the bug
	// (Introduced <= Buggy); "" when the catalog does not know it.
	Introduced string `json:"introduced,omitempty"`
	// Sources are the changelog line, issue, pull request or commit that
	// state the bug and its fix (https URLs; at least one).
	Sources []string `json:"sources"`
	// Says is what the first source says of the fix, quoted.
	Says string `json:"says"`
	// Property is the class of the property the bug breaks (model.Class:
	// safety, refusal, contract, fairness, liveness); Breaks says how, in
	// words.
	Property model.Class `json:"property"`
	Breaks   string      `json:"breaks"`
	// Trigger is what makes the bug show, in words.
	Trigger string `json:"trigger"`
	// Missing, when set, is what lockcheck lacks to produce the trigger
	// (or to check the property); "" when it can produce it.
	Missing string `json:"missing,omitempty"`
	// KnownInFixed are other bugs the fixed release still has, which the
	// hunt's general mix may find there: catalog IDs, or a description
	// with its https source for a bug no release has fixed.
	KnownInFixed []string `json:"known_in_fixed,omitempty"`
}

// Open reports whether no release has fixed b (it has no Fixed).
func (b Bug) Open() bool { return b.Fixed == "" }

// Producible reports whether lockcheck can produce the bug's trigger.
func (b Bug) Producible() bool { return b.Missing == "" }

// Release is SUBJECT@VERSION, the subject name of one release of b's lock.
func (b Bug) Release(version string) string { return b.Subject + "@" + version }

// Catalog is the file of known bugs.
type Catalog struct {
	// Doc says what the file is, for a reader of the JSON.
	Doc  string `json:"doc,omitempty"`
	Bugs []Bug  `json:"bugs"`
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

var (
	idPattern      = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)
	subjectPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
)

// Validate checks every entry (see Bug) and that no bug is listed twice:
// no two entries share an ID, nor a release pair and a quote.
func (c Catalog) Validate() error {
	if len(c.Bugs) == 0 {
		return fmt.Errorf("%w: no bugs", ErrCatalog)
	}
	ids := map[string]bool{}
	same := map[string]string{}
	for i, b := range c.Bugs {
		if err := b.validate(); err != nil {
			return fmt.Errorf("%w: entry %d (%q): %v", ErrCatalog, i+1, b.ID, err)
		}
		if ids[b.ID] {
			return fmt.Errorf("%w: entry %d: id %q listed twice", ErrCatalog, i+1, b.ID)
		}
		ids[b.ID] = true
		key := strings.Join([]string{b.Subject, b.Buggy, b.Fixed, strings.ToLower(b.Says)}, "\x00")
		if first, dup := same[key]; dup {
			return fmt.Errorf("%w: entry %d (%q) is %q again: same releases, same quote", ErrCatalog, i+1, b.ID, first)
		}
		same[key] = b.ID
	}
	return c.checkKnownInFixed(ids)
}

// checkKnownInFixed checks that each entry of a known_in_fixed list is a
// catalog ID other than its own bug's, or a description citing an https
// source.
func (c Catalog) checkKnownInFixed(ids map[string]bool) error {
	for i, b := range c.Bugs {
		for _, k := range b.KnownInFixed {
			switch {
			case k == b.ID:
				return fmt.Errorf("%w: entry %d (%q): known_in_fixed names the bug itself", ErrCatalog, i+1, b.ID)
			case ids[k]:
			case idPattern.MatchString(k):
				return fmt.Errorf("%w: entry %d (%q): known_in_fixed %q: no such bug in the catalog", ErrCatalog, i+1, b.ID, k)
			case !strings.Contains(k, "https://"):
				return fmt.Errorf("%w: entry %d (%q): known_in_fixed %q: name a catalog bug, or cite an https source", ErrCatalog, i+1, b.ID, k)
			}
		}
	}
	return nil
}

// validate checks one entry's fields.
func (b Bug) validate() error {
	required := []struct{ name, value string }{
		{"library", b.Library}, {"says", b.Says}, {"breaks", b.Breaks}, {"trigger", b.Trigger},
	}
	for _, f := range required {
		if strings.TrimSpace(f.value) == "" {
			return fmt.Errorf("%s: empty", f.name)
		}
	}
	switch {
	case !idPattern.MatchString(b.ID):
		return fmt.Errorf("id %q: want lowercase letters, digits, dots and dashes", b.ID)
	case !subjectPattern.MatchString(b.Subject):
		return fmt.Errorf("subject %q: want a subject name without a version (no @, no spaces)", b.Subject)
	case !knownClass(b.Property):
		return fmt.Errorf("property %q: want one of safety, refusal, contract, fairness, liveness", b.Property)
	}
	if err := checkOrder(b.Buggy, b.Fixed); err != nil {
		return err
	}
	if err := checkIntroduced(b.Introduced, b.Buggy); err != nil {
		return err
	}
	return checkSources(b.Sources)
}

// knownClass reports whether c is one of model's classes.
func knownClass(c model.Class) bool {
	switch c {
	case model.ClassSafety, model.ClassRefusal, model.ClassContract, model.ClassFairness, model.ClassLiveness:
		return true
	}
	return false
}

// checkOrder checks that buggy and fixed are versions and buggy < fixed;
// fixed may be "" (an open bug).
func checkOrder(buggy, fixed string) error {
	vb, err := subject.ParseRelease(buggy)
	if err != nil {
		return fmt.Errorf("buggy: %v", err)
	}
	if fixed == "" {
		return nil
	}
	vf, err := subject.ParseRelease(fixed)
	if err != nil {
		return fmt.Errorf("fixed: %v", err)
	}
	if vb.Compare(vf) >= 0 {
		return fmt.Errorf("buggy %s is not older than fixed %s", buggy, fixed)
	}
	return nil
}

// checkIntroduced checks that introduced, when given, is a version no
// newer than buggy.
func checkIntroduced(introduced, buggy string) error {
	if introduced == "" {
		return nil
	}
	if _, err := subject.ParseRelease(introduced); err != nil {
		return fmt.Errorf("introduced: %v", err)
	}
	if subject.CompareReleases(introduced, buggy) > 0 {
		return fmt.Errorf("introduced %s is newer than buggy %s", introduced, buggy)
	}
	return nil
}

// checkSources checks that there is a source and each is an https URL
// with a host, listed once.
func checkSources(sources []string) error {
	if len(sources) == 0 {
		return errors.New("sources: none (a finding about a library cites its source)")
	}
	seen := map[string]bool{}
	for _, s := range sources {
		u, err := url.Parse(s)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("source %q: want an https URL", s)
		}
		if seen[s] {
			return fmt.Errorf("source %q listed twice", s)
		}
		seen[s] = true
	}
	return nil
}
