package model

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ErrSignature marks a signature that does not parse.
var ErrSignature = errors.New("bad signature")

// Any is the wildcard of a signature's field: a pattern with it matches
// every value there.
const Any = "*"

// Fault field values of a Signature besides the wildcard.
const (
	// FaultNone: no fault window overlaps the violation's ops.
	FaultNone = "none"
	// beyondPrefix leads the fault names of a violation beyond every
	// overlapping fault's allowance, duringPrefix those of one its
	// checker does not judge against them.
	beyondPrefix = "beyond:"
	duringPrefix = "during:"
	// noOps is the OPS of a violation that names no op.
	noOps = "none"
)

// Signature says what a violation is, from the history and not from its
// words: the property class it broke, its shape, the op kinds (and call
// forms) involved and the faults it went beyond. Two finds of one bug
// have the same signature whatever their processes, times and locks.
//
// Its canonical string is CLASS/SHAPE/OPS/FAULT, for example
// "safety/double-grant/acquire+acquire.lock/beyond:client-conn-kill":
//
//   - SHAPE is the shape, with ".MECHANISM" when its checker said how it
//     came about ("watchdog-gave-up.after-failure");
//   - OPS is the distinct op terms, sorted, joined by "+": an op's kind,
//     with ".CALL" when the run varied its call forms (the library call's
//     name: "acquire.tryLock", "release.unlock");
//   - FAULT is "none" (no fault overlaps the ops), "beyond:F1+F2" (the
//     overlapping faults, and the violation goes beyond them all) or
//     "during:F1" (the faults overlap it, and its checker does not judge it beyond them).
//
// As a pattern (Matches) any field may be "*", and FAULT may be
// "beyond:*" or "during:*".
type Signature struct {
	Class Class
	Shape Shape
	// Mechanism narrows the shape (Example.Mechanism; "": none recorded,
	// or any in a pattern).
	Mechanism string
	// Ops are the op terms, sorted and distinct.
	Ops []string
	// Fault is "none", "beyond:NAMES", "during:NAMES" or "*".
	Fault string
}

// SignatureOf is the signature of ex, an example of the named checker's.
func SignatureOf(checker string, ex Example) Signature {
	c := ex.Class
	if c == "" {
		c = checkerClass[checker]
	}
	s := Signature{Class: c, Shape: shapeOf(checker, ex), Mechanism: ex.Mechanism, Fault: FaultNone}
	for _, o := range ex.Ops {
		s.Ops = append(s.Ops, opTerm(o))
	}
	slices.Sort(s.Ops)
	if s.Ops = slices.Compact(s.Ops); len(s.Ops) == 0 {
		s.Ops = []string{noOps} // not "*": a violation without ops is no pattern
	}
	var names []string
	for _, f := range ex.Faults {
		names = append(names, termOf(f.Name))
	}
	slices.Sort(names)
	if names = slices.Compact(names); len(names) > 0 {
		s.Fault = duringPrefix + strings.Join(names, "+")
		if ex.Beyond {
			s.Fault = beyondPrefix + strings.Join(names, "+")
		}
	}
	return s
}

// Signatures are the distinct signatures of the report's violations (the
// examples of its Invalid results), in canonical order; nil when none.
func (r Report) Signatures() []Signature {
	seen := map[string]Signature{}
	for _, res := range r.Results {
		if res.Verdict != Invalid {
			continue
		}
		for _, ex := range res.Examples {
			s := SignatureOf(res.Checker, ex)
			seen[s.String()] = s
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []Signature
	for _, k := range keys {
		out = append(out, seen[k])
	}
	return out
}

// opTerm is o's term: its kind, and the name of the library call it made
// when its form was recorded ("lockInterruptibly(2, SECONDS)": "lockInterruptibly").
func opTerm(o Op) string {
	call, _, _ := strings.Cut(o.Form, "(")
	if call = termOf(call); call == "" {
		return string(o.Kind)
	}
	return string(o.Kind) + "." + call
}

// termOf keeps s's letters, digits, dots, dashes and underscores: what a
// signature's field may hold.
func termOf(s string) string {
	return strings.Map(func(r rune) rune {
		if termRune(r) {
			return r
		}
		return -1
	}, s)
}

func termRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_'
}

// String is the canonical form, CLASS/SHAPE/OPS/FAULT ("*" for an empty
// field).
func (s Signature) String() string {
	field := func(v string) string {
		if v == "" {
			return Any
		}
		return v
	}
	shape := field(string(s.Shape))
	if s.Shape != "" && s.Mechanism != "" {
		shape += "." + s.Mechanism
	}
	return strings.Join([]string{field(string(s.Class)), shape, field(strings.Join(s.Ops, "+")), field(s.Fault)}, "/")
}

// MarshalText writes the canonical form, so that JSON holds a signature
// as one string.
func (s Signature) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses the canonical form (ParseSignature).
func (s *Signature) UnmarshalText(b []byte) error {
	p, err := ParseSignature(string(b))
	if err != nil {
		return err
	}
	*s = p
	return nil
}

var (
	opPattern    = regexp.MustCompile(`^[a-z-]+(\.[A-Za-z0-9_.-]+)?$`)
	faultPattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
)

// ParseSignature parses CLASS/SHAPE/OPS/FAULT (String's form, where any
// field may be "*"): an error wrapping ErrSignature names the bad field.
func ParseSignature(text string) (Signature, error) {
	f := strings.Split(text, "/")
	if len(f) != 4 {
		return Signature{}, fmt.Errorf("%w %q: want CLASS/SHAPE/OPS/FAULT", ErrSignature, text)
	}
	var s Signature
	if f[0] != Any {
		if s.Class = Class(f[0]); classRank[s.Class] == 0 {
			return Signature{}, fmt.Errorf("%w %q: class %q: want one of safety, refusal, contract, fairness, liveness or *", ErrSignature, text, f[0])
		}
	}
	if f[1] != Any {
		shape, mech, qualified := strings.Cut(f[1], ".")
		if s.Shape, s.Mechanism = Shape(shape), mech; !shapes[s.Shape] {
			return Signature{}, fmt.Errorf("%w %q: unknown shape %q", ErrSignature, text, shape)
		}
		if qualified && !mechanisms[mech] {
			return Signature{}, fmt.Errorf("%w %q: unknown mechanism %q of shape %q", ErrSignature, text, mech, shape)
		}
	}
	if f[2] != Any {
		ops, err := parseOps(f[2])
		if err != nil {
			return Signature{}, fmt.Errorf("%w %q: %v", ErrSignature, text, err)
		}
		s.Ops = ops
	}
	if err := checkFault(f[3]); err != nil {
		return Signature{}, fmt.Errorf("%w %q: %v", ErrSignature, text, err)
	}
	if f[3] != Any {
		s.Fault = f[3]
	}
	return s, nil
}

// parseOps parses OPS: distinct terms in order, joined by "+".
func parseOps(field string) ([]string, error) {
	ops := strings.Split(field, "+")
	for i, o := range ops {
		switch {
		case !opPattern.MatchString(o):
			return nil, fmt.Errorf("op %q: want KIND or KIND.CALL", o)
		case i > 0 && ops[i-1] >= o:
			return nil, fmt.Errorf("ops %q: want distinct terms in sorted order", field)
		}
	}
	return ops, nil
}

// checkFault checks FAULT: "*", "none", or "beyond:"/"during:" and "*"
// or fault names in sorted order.
func checkFault(field string) error {
	if field == Any || field == FaultNone {
		return nil
	}
	names, ok := strings.CutPrefix(field, beyondPrefix)
	if !ok {
		if names, ok = strings.CutPrefix(field, duringPrefix); !ok {
			return fmt.Errorf("fault %q: want none, beyond:NAMES, during:NAMES or *", field)
		}
	}
	if names == Any {
		return nil
	}
	list := strings.Split(names, "+")
	for i, n := range list {
		if !faultPattern.MatchString(n) || (i > 0 && list[i-1] >= n) {
			return fmt.Errorf("fault %q: want distinct fault names in sorted order, joined by +", field)
		}
	}
	return nil
}

// Matches reports whether s, a violation's signature, fits the pattern p:
// each field of p is open ("*", empty) or equal to s's, with three
// openings more: every op term of p is among s's (a term KIND matches
// KIND.CALL of any call), a fault "beyond:*" or "during:*" matches any
// faults on that side, and a signature recorded without a mechanism
// (before the run's checker read one) fits a pattern of any mechanism:
// what was not recorded does not contradict it.
func (p Signature) Matches(s Signature) bool {
	switch {
	case p.Class != "" && p.Class != s.Class:
		return false
	case p.Shape != "" && p.Shape != s.Shape, p.Mechanism != "" && s.Mechanism != "" && p.Mechanism != s.Mechanism:
		return false
	case !faultMatches(p.Fault, s.Fault):
		return false
	}
	for _, want := range p.Ops {
		if !slices.ContainsFunc(s.Ops, func(have string) bool { return opMatches(want, have) }) {
			return false
		}
	}
	return true
}

// Replayed is the pattern a replay of the find whose signature is s fits
// when it shows the same violation: the same class, shape and op terms,
// beyond some fault when s was; which faults overlap it (a harness hiccup,
// a drop) varies from run to run, so they are left open.
func (s Signature) Replayed() Signature {
	p := Signature{Class: s.Class, Shape: s.Shape, Mechanism: s.Mechanism, Ops: s.Ops, Fault: Any}
	if strings.HasPrefix(s.Fault, beyondPrefix) {
		p.Fault = beyondPrefix + Any
	}
	return p
}

// kinds is s with each op term cut to its kind (no call forms).
func (s Signature) kinds() Signature {
	ops := make([]string, 0, len(s.Ops))
	for _, o := range s.Ops {
		kind, _, _ := strings.Cut(o, ".")
		ops = append(ops, kind)
	}
	slices.Sort(ops)
	s.Ops = slices.Compact(ops)
	return s
}

// During reports whether s's violation overlaps fault windows that its
// checker did not judge it beyond (FAULT "during:...").
func (s Signature) During() bool { return strings.HasPrefix(s.Fault, duringPrefix) }

// MatchesAny reports whether some signature of ss fits p.
func (p Signature) MatchesAny(ss []Signature) bool {
	return slices.ContainsFunc(ss, p.Matches)
}

func opMatches(want, have string) bool {
	return want == have || (!strings.Contains(want, ".") && strings.HasPrefix(have, want+"."))
}

func faultMatches(want, have string) bool {
	switch {
	case want == "" || want == Any || want == have:
		return true
	case want == beyondPrefix+Any:
		return strings.HasPrefix(have, beyondPrefix)
	case want == duringPrefix+Any:
		return strings.HasPrefix(have, duringPrefix)
	}
	return false
}
