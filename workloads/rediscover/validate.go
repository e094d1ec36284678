package rediscover

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

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
	if err := c.checkKnownInFixed(ids); err != nil {
		return err
	}
	return c.checkAlone(ids)
}

// checkAlone checks each library-alone script: subjects, checkers, script
// and claim set, and its bug, when named, a catalog ID.
func (c Catalog) checkAlone(ids map[string]bool) error {
	for i, r := range c.Alone {
		switch {
		case len(r.Subjects) == 0 || len(r.Checkers) == 0:
			return fmt.Errorf("%w: alone %d (%s): no subjects or no checkers", ErrCatalog, i+1, r.Script)
		case strings.TrimSpace(r.Script) == "" || strings.TrimSpace(r.Claim) == "":
			return fmt.Errorf("%w: alone %d: script or claim empty", ErrCatalog, i+1)
		case r.Bug != "" && !ids[r.Bug]:
			return fmt.Errorf("%w: alone %d (%s): bug %q: no such bug in the catalog", ErrCatalog, i+1, r.Script, r.Bug)
		}
	}
	return nil
}

// checkKnownInFixed checks that each entry of a known_in_fixed list is a
// catalog ID other than its own bug's, listed once, on a bug that has a
// fixed release.
func (c Catalog) checkKnownInFixed(ids map[string]bool) error {
	for i, b := range c.Bugs {
		seen := map[string]bool{}
		for _, k := range b.KnownInFixed {
			switch {
			case b.Open():
				return fmt.Errorf("%w: entry %d (%q): known_in_fixed on an open bug (no fixed release)", ErrCatalog, i+1, b.ID)
			case k == b.ID:
				return fmt.Errorf("%w: entry %d (%q): known_in_fixed names the bug itself", ErrCatalog, i+1, b.ID)
			case !ids[k]:
				return fmt.Errorf("%w: entry %d (%q): known_in_fixed %q: no such bug in the catalog (name catalog entries only)", ErrCatalog, i+1, b.ID, k)
			case seen[k]:
				return fmt.Errorf("%w: entry %d (%q): known_in_fixed %q listed twice", ErrCatalog, i+1, b.ID, k)
			}
			seen[k] = true
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
	case b.Signature.Class != b.Property:
		return fmt.Errorf("signature %s: its class is not the property %s", b.Signature, b.Property)
	case b.Signature.Shape == "":
		return fmt.Errorf("signature %s: no shape (a bug's signature names the anomaly's shape)", b.Signature)
	}
	for _, a := range b.AlsoSignatures {
		if a.Shape == "" || !knownClass(a.Class) {
			return fmt.Errorf("also_signatures %s: want a class and a shape", a)
		}
	}
	if err := b.checkReleases(); err != nil {
		return err
	}
	return checkSources(b.Sources)
}

// checkReleases checks the versions: since <= buggy < fixed, or, for an
// open bug, an https upstream link.
func (b Bug) checkReleases() error {
	switch {
	case b.Since == "" && len(b.SinceSources) > 0:
		return errors.New("since_sources without since")
	case b.Since != "" && len(b.SinceSources) == 0:
		return fmt.Errorf("since %s: no since_sources (what shows the release that brought the bug)", b.Since)
	case b.Since != "":
		if err := checkOrder("since", b.Since, "buggy", b.Buggy, false); err != nil {
			return err
		}
		if err := checkSinceSources(b.SinceSources); err != nil {
			return err
		}
	}
	if !b.Open() {
		if b.Upstream != "" {
			return fmt.Errorf("upstream %q on a fixed bug (its sources cite the fix)", b.Upstream)
		}
		return checkOrder("buggy", b.Buggy, "fixed", b.Fixed, true)
	}
	if _, err := subject.ParseRelease(b.Buggy); err != nil {
		return fmt.Errorf("buggy: %v", err)
	}
	if u, err := url.Parse(b.Upstream); err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("upstream %q: an open bug (no fixed release) cites its upstream issue as an https URL", b.Upstream)
	}
	return nil
}

// knownClass reports whether c is one of model's classes.
func knownClass(c model.Class) bool {
	switch c {
	case model.ClassSafety, model.ClassRefusal, model.ClassContract, model.ClassFairness, model.ClassLiveness:
		return true
	}
	return false
}

// checkOrder checks that the releases named by fields (since, buggy,
// fixed) are versions and come in order: older before newer, or, unless
// strict, the same.
func checkOrder(olderField, older, newerField, newer string, strict bool) error {
	vo, err := subject.ParseRelease(older)
	if err != nil {
		return fmt.Errorf("%s: %v", olderField, err)
	}
	vn, err := subject.ParseRelease(newer)
	if err != nil {
		return fmt.Errorf("%s: %v", newerField, err)
	}
	if c := vo.Compare(vn); c > 0 || (strict && c == 0) {
		return fmt.Errorf("%s %s is not older than %s %s", olderField, older, newerField, newer)
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

// checkSinceSources checks that each of since_sources is an https URL or
// a relative path inside the repository.
func checkSinceSources(sources []string) error {
	for _, s := range sources {
		if u, err := url.Parse(s); err == nil && u.Scheme == "https" && u.Host != "" {
			continue
		}
		if s == "" || strings.Contains(s, ":") || path.IsAbs(s) || strings.HasPrefix(path.Clean(s), "..") {
			return fmt.Errorf("since_sources %q: want an https URL or a path in this repository", s)
		}
	}
	return nil
}
