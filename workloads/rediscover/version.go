package rediscover

import (
	"fmt"
	"strconv"
	"strings"
)

// version is a release number: numeric parts and an optional pre-release
// ("1.2.3", "v4.0.3", "5.0.0-beta.1"). A pre-release comes before its
// release; pre-releases compare as strings.
type version struct {
	parts []int
	pre   string
}

// parseVersion parses s, with or without a leading "v".
func parseVersion(s string) (version, error) {
	core, pre, _ := strings.Cut(strings.TrimPrefix(s, "v"), "-")
	if core == "" {
		return version{}, fmt.Errorf("version %q: empty", s)
	}
	var v version
	for _, p := range strings.Split(core, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return version{}, fmt.Errorf("version %q: want numbers separated by dots (and an optional -pre-release)", s)
		}
		v.parts = append(v.parts, n)
	}
	v.pre = pre
	return v, nil
}

// compare returns -1, 0 or +1 as v is older than, the same as or newer
// than w; missing parts count as 0.
func (v version) compare(w version) int {
	for i := range max(len(v.parts), len(w.parts)) {
		a, b := part(v.parts, i), part(w.parts, i)
		if a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	switch {
	case v.pre == w.pre:
		return 0
	case v.pre == "":
		return 1
	case w.pre == "":
		return -1
	}
	return strings.Compare(v.pre, w.pre)
}

func part(parts []int, i int) int {
	if i < len(parts) {
		return parts[i]
	}
	return 0
}
