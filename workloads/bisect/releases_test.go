package bisect

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/subject"
)

// registryList is a fake registry's list: a pre-release between, a
// release before the driver's range, one outside the list's order.
var registryList = []string{"2.9.0", "3.0.0", "3.1.0", "3.2.0-rc1", "3.2.0", "3.3.0", "3.4.0.Final", "3.5.0"}

func TestBetween(t *testing.T) {
	vs := fakeVersions(registryList, subject.Range{Min: "3.1.0", Max: "3.x"})
	rels, refused, err := Between(t.Context(), vs, "3.1.0", "3.5.0")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"3.1.0", "3.2.0", "3.3.0", "3.4.0.Final", "3.5.0"}; !slices.Equal(rels, want) {
		t.Errorf("releases %v, want %v (no pre-release between)", rels, want)
	}
	if len(refused) != 0 {
		t.Errorf("refused %v, want none", refused)
	}
	vs = fakeVersions(registryList, subject.Range{Min: "3.1.0", Max: "3.2.0"})
	if _, refused, err = Between(t.Context(), vs, "3.1.0", "3.2.0"); err != nil || len(refused) != 0 {
		t.Errorf("ends in the range: refused %v, err %v", refused, err)
	}
	vs = fakeVersions(registryList, subject.Range{Min: "2.9.0", Max: "3.1.0"})
	if _, _, err := Between(t.Context(), vs, "2.9.0", "3.3.0"); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "3.3.0") {
		t.Errorf("a bad end outside the range: err %v, want ErrUnsupported naming 3.3.0", err)
	}
	vs = fakeVersions(registryList, subject.Range{Min: "3.3.1"})
	if _, _, err := Between(t.Context(), vs, "3.0.0", "3.5.0"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a good end outside the range: err %v, want ErrUnsupported", err)
	}
}

// TestBetweenRefused: a release between that the driver does not support
// is listed, and refused with the range.
func TestBetweenRefused(t *testing.T) {
	vs := fakeVersions(registryList, subject.Range{Min: "3.0.0", Max: "3.5.0"})
	vs.Supports.Max = "3.2.0"
	vs.Pinned = "3.5.0" // the pinned release is always supported
	rels, refused, err := Between(t.Context(), vs, "3.0.0", "3.5.0")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0.Final", "3.5.0"}; !slices.Equal(rels, want) {
		t.Errorf("releases %v, want %v", rels, want)
	}
	if len(refused) != 2 || !strings.Contains(refused["3.3.0"], "3.0.0 to 3.2.0") || refused["3.4.0.Final"] == "" {
		t.Errorf("refused %v, want 3.3.0 and 3.4.0.Final, naming the range", refused)
	}
}

// TestBetweenAskedAlone: an end the registry's list leaves out (the Go
// module proxy's list of redsync lacks v4.12.0, which it serves) is taken
// when the registry serves it asked alone; one it does not serve is still
// unknown.
func TestBetweenAskedAlone(t *testing.T) {
	vs := fakeVersions(registryList, subject.Range{})
	vs.Has = func(_ context.Context, v string) (bool, error) { return v == "3.6.0", nil }
	rels, _, err := Between(t.Context(), vs, "3.3.0", "3.6.0")
	if want := []string{"3.3.0", "3.4.0.Final", "3.5.0", "3.6.0"}; err != nil || !slices.Equal(rels, want) {
		t.Errorf("releases %v, err %v; want %v", rels, err, want)
	}
	if _, _, err := Between(t.Context(), vs, "3.3.0", "3.7.0"); !errors.Is(err, ErrUnknownRelease) {
		t.Errorf("an end served neither way: err %v, want ErrUnknownRelease", err)
	}
}

func TestBetweenBadInput(t *testing.T) {
	vs := fakeVersions(registryList, subject.Range{})
	for _, c := range []struct {
		good, bad string
		want      error
	}{
		{"3.0.0", "3.0.0", ErrOrder},
		{"3.5.0", "3.0.0", ErrOrder},
		{"3.0", "3.0.0", ErrOrder}, // the same release, spelt short
		{"3.0.0", "3.6.0", ErrUnknownRelease},
		{"3.0.5", "3.5.0", ErrUnknownRelease},
		{"three", "3.5.0", ErrUnknownRelease},
		{"3.0.0", "latest", ErrUnknownRelease},
	} {
		if _, _, err := Between(t.Context(), vs, c.good, c.bad); !errors.Is(err, c.want) {
			t.Errorf("Between(%s, %s): err %v, want %v", c.good, c.bad, err, c.want)
		}
	}
}

// TestRender: the table names the boundary, its counts and P, the
// releases visited, and the rerun command; the JSON carries the same.
func TestRender(t *testing.T) {
	f := &fakeReplayer{first: "1.3.0", broken: map[string]bool{"1.2.0": true}}
	res, err := Run(t.Context(), Config{Releases: releases(5), Replayer: f, Match: isFind})
	if err != nil {
		t.Fatal(err)
	}
	res.Subject, res.Command = "fake", "lockcheck bisect --subject fake --plan p.json --seed 7 --good 1.0.0 --bad 1.4.0"
	var b bytes.Buffer
	if err := WriteTable(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"bisect fake: good 1.0.0, bad 1.4.0, 5 replays a release; 5 of 5 releases visited",
		"1.2.0    skipped  -",
		"first release with the find: 1.3.0 (5 of 5 replays); last without: 1.1.0 (0 of 5); P = 0.00397",
		"untested between them: 1.2.0",
		"rerun: lockcheck bisect --subject fake",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"first_has": "1.3.0"`, `"last_clean": "1.1.0"`, `"state": "skipped"`, `"untested": [`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b.String())
		}
	}
}
