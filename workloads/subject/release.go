package subject

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// ReleaseNumber is a library's release number, as the registries spell
// them: dotted numbers with an optional leading "v" ("3.8.0", "v4.0.3"),
// then an optional suffix. Maven's ".RELEASE", ".Final" and ".GA" and
// build metadata ("+build.5") name the release itself; PyPI's ".postN" a
// release after it; "-anything" (semver), or a pre-release tag with or
// without a dot ("rc1", ".M1", "b2", ".dev0", "alpha", "SNAPSHOT") a
// pre-release before it. ParseRelease makes one and Compare orders two:
// the one comparison of releases in lockcheck.
type ReleaseNumber struct {
	nums []int
	// stage is -1 for a pre-release, 0 for the release, +1 for a
	// post-release; tag is the pre- or post-release's own part.
	stage int
	tag   string
}

// preTags start a pre-release that follows the numbers directly or after a
// dot (after "-" anything does): PEP 440's a, b, c, rc and dev, Maven's M,
// CR, SNAPSHOT and EA, and the words.
var preTags = []string{"alpha", "beta", "milestone", "preview", "pre", "snapshot", "dev", "rc", "cr", "ea", "a", "b", "c", "m"}

// ParseRelease parses s, or says why it is no release number.
func ParseRelease(s string) (ReleaseNumber, error) {
	rest := strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	var r ReleaseNumber
	for {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 {
			return ReleaseNumber{}, fmt.Errorf("release %q: want numbers separated by dots, then an optional pre-release", s)
		}
		n, err := strconv.Atoi(rest[:i])
		if err != nil {
			return ReleaseNumber{}, fmt.Errorf("release %q: %v", s, err)
		}
		r.nums = append(r.nums, n)
		rest = rest[i:]
		if len(rest) < 2 || rest[0] != '.' || rest[1] < '0' || rest[1] > '9' {
			break
		}
		rest = rest[1:]
	}
	rest, _, _ = strings.Cut(rest, "+") // build metadata
	switch low := strings.ToLower(rest); {
	case low == "" || low == ".release" || low == ".final" || low == ".ga":
	case strings.HasPrefix(low, ".post") || strings.HasPrefix(low, "post") || strings.HasPrefix(low, "-post"):
		r.stage, r.tag = 1, strings.TrimLeft(low, ".-")
	case strings.HasPrefix(low, "-") && identifiers(low[1:]):
		r.stage, r.tag = -1, low[1:]
	case identifiers(strings.TrimPrefix(low, ".")) && preTag(strings.TrimPrefix(low, ".")):
		r.stage, r.tag = -1, strings.TrimPrefix(low, ".")
	default:
		return ReleaseNumber{}, fmt.Errorf("release %q: %q is no pre-release (want -TAG, rc1, .M1, b2...)", s, rest)
	}
	return r, nil
}

// identifiers says s is letters and digits in runs separated by single
// dots, dashes or underscores.
func identifiers(s string) bool {
	if s == "" {
		return false
	}
	for _, part := range strings.FieldsFunc(s, func(c rune) bool { return c == '.' || c == '-' || c == '_' }) {
		for _, c := range part {
			if (c < '0' || c > '9') && (c < 'a' || c > 'z') {
				return false
			}
		}
	}
	return !strings.ContainsAny(s[:1]+s[len(s)-1:], ".-_") && !strings.Contains(s, "..")
}

// preTag says s starts with a pre-release tag followed by a digit, a
// separator or nothing.
func preTag(s string) bool {
	for _, t := range preTags {
		if rest, ok := strings.CutPrefix(s, t); ok && (rest == "" || rest[0] < 'a' || rest[0] > 'z') {
			return true
		}
	}
	return false
}

// Line is r's minor line, its first two numbers ("3.43" for "3.43.0",
// "4.0" for "v4"): the releases of a line differ in their patch only.
func (r ReleaseNumber) Line() string {
	return fmt.Sprintf("%d.%d", num(r.nums, 0), num(r.nums, 1))
}

// Stable says r is no pre-release.
func (r ReleaseNumber) Stable() bool { return r.stage >= 0 }

// Compare returns -1, 0 or +1 as r is older than, the same as or newer
// than o. Missing numbers count as 0 ("1.2" is "1.2.0"); a pre-release
// comes before its release and a post-release after it; tags compare by
// their runs of digits (as numbers) and of letters.
func (r ReleaseNumber) Compare(o ReleaseNumber) int {
	for i := range max(len(r.nums), len(o.nums)) {
		if c := cmp.Compare(num(r.nums, i), num(o.nums, i)); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(r.stage, o.stage); c != 0 {
		return c
	}
	return compareTags(r.tag, o.tag)
}

// CompareReleases orders release numbers as ReleaseNumber.Compare does;
// a string that is no release number comes before every release, and two
// of them compare as strings. Registries' lists are sorted with it.
func CompareReleases(a, b string) int {
	ra, errA := ParseRelease(a)
	rb, errB := ParseRelease(b)
	switch {
	case errA != nil && errB != nil:
		return strings.Compare(a, b)
	case errA != nil:
		return -1
	case errB != nil:
		return 1
	}
	return ra.Compare(rb)
}

// compareTags compares pre-release tags run by run: "rc.2" before "rc.10",
// "alpha" before "beta", a tag before any longer tag it begins.
func compareTags(a, b string) int {
	ra, rb := tagRuns(a), tagRuns(b)
	for i := range min(len(ra), len(rb)) {
		x, y := ra[i], rb[i]
		nx, errX := strconv.Atoi(x)
		ny, errY := strconv.Atoi(y)
		var c int
		switch {
		case errX == nil && errY == nil:
			c = cmp.Compare(nx, ny)
		case errX == nil:
			c = -1 // numbers before words, as in semver
		case errY == nil:
			c = 1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ra), len(rb))
}

// tagRuns splits a tag into its runs of digits and of letters.
func tagRuns(s string) []string {
	var runs []string
	start := -1
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	for i := 0; i <= len(s); i++ {
		sep := i == len(s) || s[i] == '.' || s[i] == '-' || s[i] == '_'
		if start >= 0 && (sep || digit(s[i]) != digit(s[start])) {
			runs = append(runs, s[start:i])
			start = -1
		}
		if !sep && start < 0 {
			start = i
		}
	}
	return runs
}

func num(nums []int, i int) int {
	if i < len(nums) {
		return nums[i]
	}
	return 0
}

// Range is the releases a driver supports, as measured (docs/drivers.md):
// Min to Max, both included, a bound left out where nothing was measured
// beyond it. Versions.Supports holds it: Resolve refuses a release outside
// it before anything is asked or fetched, and String is the text lockcheck
// shows for it.
type Range struct {
	// Min is the oldest release supported ("3.8.0"); "" for no lower bound.
	Min string
	// Max is the newest: a release ("4.7.0"), or a line of them ending in
	// ".x" ("4.x": every 4.*, "0.10.x"); "" for no upper bound.
	Max string
	// Note says more, in parentheses after the bounds ("the fenced lock
	// from 3.25.0"; "not measured beyond the pin").
	Note string
}

// lineSuffix ends a Max that is a line of releases ("4.x").
const lineSuffix = ".x"

// Contains says release v is within r. With a bound, a v that is no
// release number is not.
func (r Range) Contains(v string) bool {
	if r.Min == "" && r.Max == "" {
		return true
	}
	rv, err := ParseRelease(v)
	if err != nil {
		return false
	}
	if r.Min != "" {
		lo, err := ParseRelease(r.Min)
		if err != nil || rv.Compare(lo) < 0 {
			return false
		}
	}
	if r.Max == "" {
		return true
	}
	line, isLine := strings.CutSuffix(r.Max, lineSuffix)
	hi, err := ParseRelease(line)
	if err != nil {
		return false
	}
	if !isLine {
		return rv.Compare(hi) <= 0
	}
	for i, n := range hi.nums {
		if c := cmp.Compare(num(rv.nums, i), n); c != 0 {
			return c < 0
		}
	}
	return true
}

// Valid says why r's bounds are no release numbers, or Min comes after
// Max; nil when they are fine.
func (r Range) Valid() error {
	if r.Min != "" {
		if _, err := ParseRelease(r.Min); err != nil {
			return fmt.Errorf("range %s: Min: %v", r, err)
		}
	}
	if r.Max != "" {
		if _, err := ParseRelease(strings.TrimSuffix(r.Max, lineSuffix)); err != nil {
			return fmt.Errorf("range %s: Max: %v", r, err)
		}
	}
	if r.Min != "" && r.Max != "" && !r.Contains(r.Min) {
		return fmt.Errorf("range %s: Min is past Max", r)
	}
	return nil
}

// Bounds is r's bounds in words: "3.8.0 to 4.x", "3.7.0 and later", "up to
// 4.x", "any release".
func (r Range) Bounds() string {
	switch {
	case r.Min != "" && r.Max != "":
		return r.Min + " to " + r.Max
	case r.Min != "":
		return r.Min + " and later"
	case r.Max != "":
		return "up to " + r.Max
	}
	return "any release"
}

// String is Bounds, then the note in parentheses.
func (r Range) String() string {
	if r.Note == "" {
		return r.Bounds()
	}
	return r.Bounds() + " (" + r.Note + ")"
}
