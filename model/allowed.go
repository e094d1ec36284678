package model

import (
	"cmp"
	"fmt"
	"slices"
)

// allowedLimit bounds Result.Allowed: a long history has one lease per
// acquire, and a page needs the few windows that allowed most.
const allowedLimit = 8

// allowances counts, per allowance (a fault window or a lease, as
// lapse.allowedBy names it), the anomalies it allowed.
type allowances map[string]int

func (a allowances) total() int {
	n := 0
	for _, c := range a {
		n += c
	}
	return n
}

// list renders the allowances, most used first: "what (×n)", at most
// allowedLimit of them, then "k others (×n)" for the rest.
func (a allowances) list() []string {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int {
		return cmp.Or(cmp.Compare(a[y], a[x]), cmp.Compare(x, y))
	})
	var out []string
	rest := 0
	for i, k := range keys {
		if i >= allowedLimit {
			rest += a[k]
			continue
		}
		out = append(out, fmt.Sprintf("%s (×%d)", k, a[k]))
	}
	if rest > 0 {
		out = append(out, fmt.Sprintf("%d others (×%d)", len(keys)-allowedLimit, rest))
	}
	return out
}
