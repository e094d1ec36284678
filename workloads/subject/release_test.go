package subject

import (
	"slices"
	"testing"
)

func TestCompareReleases(t *testing.T) {
	// Each is older than the next; = marks the same release spelled
	// another way.
	ordered := []string{
		"0.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1",
		"v1.0.0", "=1.0", "=1.0.0.RELEASE", "=1.0.0.Final", "=1.0.0+build.7", "1.0.0.post1",
		"1.0.1", "1.2", "1.10.0", "3.0.0a1", "3.0.0b2", "3.0.0rc1", "3.0.0", "3.8.0",
		"3.12.0", "4.0.0.M1", "4.0.0.M2", "4.0.0.RC1", "=4.0.0-RC1", "4.0.0", "v4.0.3", "v4.10.0",
	}
	prev := ""
	for _, v := range ordered {
		same := v[0] == '='
		if same {
			v = v[1:]
		}
		if prev != "" {
			want := -1
			if same {
				want = 0
			}
			if got := CompareReleases(prev, v); got != want {
				t.Errorf("CompareReleases(%q, %q) = %d, want %d", prev, v, got, want)
			}
			if got := CompareReleases(v, prev); got != -want {
				t.Errorf("CompareReleases(%q, %q) = %d, want %d", v, prev, got, -want)
			}
		}
		prev = v
	}
	in := []string{"v4.10.0", "v4.9.1", "v4.0.3", "3.12.0", "3.8.0", "4.0.0-rc1", "4.0.0", "nightly"}
	slices.SortFunc(in, CompareReleases)
	want := []string{"nightly", "3.8.0", "3.12.0", "4.0.0-rc1", "4.0.0", "v4.0.3", "v4.9.1", "v4.10.0"}
	if !slices.Equal(in, want) {
		t.Errorf("sorted %v, want %v (no release number first)", in, want)
	}
}

func TestParseRelease(t *testing.T) {
	for _, c := range []struct {
		in     string
		stable bool
	}{
		{"3.8.0", true}, {"v4.0.3", true}, {"6.0.0.RELEASE", true}, {"5.4.0.Final", true},
		{"1.0.0.post2", true}, {"2", true}, {"1.2.3+meta", true},
		{"3.0.0rc1", false}, {"7.1.0-M1", false}, {"5.0.0.M1", false}, {"5.0.0.RC2", false},
		{"1.0.0-0.3.7", false}, {"2.0b1", false}, {"1.0.dev0", false}, {"3.0.0-SNAPSHOT", false},
	} {
		r, err := ParseRelease(c.in)
		if err != nil || r.Stable() != c.stable {
			t.Errorf("ParseRelease(%q) = stable %v, %v; want stable %v", c.in, r.Stable(), err, c.stable)
		}
	}
	for _, bad := range []string{"", "v", "latest", "1..2", "1.x", "-1", "1.0-", "1.0.0.BUILD-SNAPSHOT", "1.0 beta", "x1.0"} {
		if _, err := ParseRelease(bad); err == nil {
			t.Errorf("ParseRelease(%q): no error", bad)
		}
	}
}

func TestRange(t *testing.T) {
	for _, c := range []struct {
		r        Range
		text     string
		in, out  []string
		badRange bool
	}{
		{r: Range{Min: "3.8.0", Max: "4.x", Note: "3.8.x does not start on Java 17"},
			text: "3.8.0 to 4.x (3.8.x does not start on Java 17)",
			in:   []string{"3.8.0", "3.12.0", "4.0.0-rc1", "4.0.0", "4.7.0", "4.99.3.Final"},
			out:  []string{"2.15.2", "3.7.9", "3.8.0-rc1", "5.0.0-M1", "5.0.0", "10.0.0", "latest", "nightly"}},
		{r: Range{Min: "v4.0.0"}, text: "v4.0.0 and later",
			in:  []string{"v4.0.0", "4.0.0", "v4.17.0", "v9.0.0"},
			out: []string{"v3.9.9", "v4.0.0-rc.1", "garbage"}},
		{r: Range{Min: "0.9.0", Max: "0.10.x"}, text: "0.9.0 to 0.10.x",
			in:  []string{"0.9.1", "0.10.0", "0.10.7"},
			out: []string{"0.8.5", "0.11.0", "1.0.0"}},
		{r: Range{Min: "6.5.0", Max: "7.0.5"}, text: "6.5.0 to 7.0.5",
			in:  []string{"6.5.0", "7.0.5", "7.0.5.RELEASE"},
			out: []string{"6.4.9", "7.0.6", "7.1.0-M1"}},
		{r: Range{Max: "4.x"}, text: "up to 4.x", in: []string{"0.1", "4.2.0"}, out: []string{"5.0.0"}},
		{r: Range{Note: "not measured beyond the pin"}, text: "any release (not measured beyond the pin)",
			in: []string{"0.0.1", "99.0", "anything"}},
		{r: Range{Min: "5.0.0", Max: "4.x"}, text: "5.0.0 to 4.x", badRange: true},
		{r: Range{Min: "three"}, text: "three and later", badRange: true, out: []string{"3.0.0"}},
	} {
		if got := c.r.String(); got != c.text {
			t.Errorf("%#v: String() = %q, want %q", c.r, got, c.text)
		}
		if err := c.r.Valid(); (err != nil) != c.badRange {
			t.Errorf("%s: Valid() = %v, want an error: %v", c.r, err, c.badRange)
		}
		for _, v := range c.in {
			if !c.r.Contains(v) {
				t.Errorf("%s does not contain %s", c.r, v)
			}
		}
		for _, v := range c.out {
			if c.r.Contains(v) {
				t.Errorf("%s contains %s", c.r, v)
			}
		}
	}
}

func TestReleaseLine(t *testing.T) {
	for in, want := range map[string]string{"3.43.0": "3.43", "3.43.10": "3.43", "v4.0.3": "4.0", "4": "4.0", "2.3.0.post1": "2.3", "7.0.0-M1": "7.0"} {
		r, err := ParseRelease(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Line(); got != want {
			t.Errorf("%s: Line %q, want %q", in, got, want)
		}
	}
}
