package model

import (
	"fmt"
	"sort"
	"strings"
)

// The threshold of a history that did not really drive its lock: among
// its acquires, or among its releases, that overlap no fault window (and
// that the workload did not cancel), at least MinDriverErrors ended in an
// error the client saw, and errors are more than MaxDriverErrorShare of
// them. A lock whose client or driver answers most acquires with an error
// (a release whose API the driver does not fit, a misconfiguration) leaves
// too few grants to decide anything; one that answers most releases with
// an error (Redisson 3.24.1 and 3.24.2's unlock with retryAttempts 0: "ERR
// invalid expire time") leaves every hold to run out, so nothing tells
// whether its unlock works. Such a history's verdict is at best Unknown,
// with the errors as the reason. A violation found in it is still real
// (Invalid).
const (
	MinDriverErrors     = 5
	MaxDriverErrorShare = 0.5
)

// undriven returns why h did not drive its lock ("" when it did): the
// share of acquires, or of releases, outside faults that ended in an
// error, and the most frequent of those errors.
func undriven(h *History, opts Options) string {
	for _, kind := range []Kind{Acquire, Release} {
		if why := undrivenBy(h, kind, opts); why != "" {
			return why
		}
	}
	return ""
}

// undrivenBy is undriven for the calls of one kind. An acquire that gave
// up when its wait ran out (gaveUp) is the lock's answer "not obtained",
// not an error.
func undrivenBy(h *History, kind Kind, opts Options) string {
	calls, nerr, errs := 0, 0, map[string]int{}
	horizon := h.horizon()
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind != kind || o.Cancelled || faultedAt(h, o, horizon) {
			continue
		}
		calls++
		if erred(o, opts) {
			nerr++
			errs[firstLine(o.Error)]++
		}
	}
	if nerr < MinDriverErrors || float64(nerr) <= MaxDriverErrorShare*float64(calls) {
		return ""
	}
	return fmt.Sprintf("%d of %d %ss outside faults ended in an error (more than %.0f%%): the lock was not really driven, so the absence of a violation decides nothing; the errors: %s",
		nerr, calls, kind, 100*MaxDriverErrorShare, topErrors(errs, 3))
}

// erred reports whether o ended in an error its client saw: an unknown
// outcome, or an acquire that failed with an error before its wait ran out
// (gaveUp). A release that failed is the lock's answer "not held", whatever
// its message says (node-redisson's "not held by this owner" after a lost
// hold): a refusal, not an error.
func erred(o *Op, opts Options) bool {
	switch {
	case o.Error == "":
		return false
	case o.Kind == Release && o.Outcome == Fail:
		return false
	}
	return !gaveUp(o, opts)
}

// gaveUp reports whether o is an acquire that failed only once its wait
// had run out: a TryLock that lasted its Wait, or a blocking acquire that
// lasted the workload's op timeout (opts.OpTimeout, when known). A slow
// lock under load answers such acquires "not obtained" with the context's
// error; that is a refusal the checkers judge, not a client that failed
// to drive the lock.
func gaveUp(o *Op, opts Options) bool {
	if o.Outcome != Fail {
		return false
	}
	bound := o.Wait
	if o.Blocking {
		bound = int64(opts.OpTimeout)
	}
	return bound > 0 && o.Return-o.Call >= bound
}

// topErrors renders the n most frequent errors with their counts.
func topErrors(errs map[string]int, n int) string {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if errs[keys[i]] != errs[keys[j]] {
			return errs[keys[i]] > errs[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for i, k := range keys {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d other kinds", len(keys)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%d× %q", errs[k], k))
	}
	return strings.Join(parts, ", ")
}

// firstLine is s up to its first newline, at most 200 bytes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
