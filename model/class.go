package model

// Class says what a violation broke, so that a report can tell a lock that
// let two holders in from one that said "no" when it should have said
// "yes". Knossos strips failed ops before it checks; lockcheck keeps the
// stricter reading (a refusal needs a holder) but labels it for what it is.
type Class string

const (
	// ClassSafety: two live holders at once, a release of a hold not held
	// that freed another's (see ClassContract for one that freed nothing),
	// a lost update, or fenced writes out of order.
	ClassSafety Class = "safety"
	// ClassRefusal: an acquire refused while no one held the lock, or an
	// owner told it held nothing while no one else held it either: a
	// contract or progress problem of the lock or its adapter; the history
	// shows no two holders.
	ClassRefusal Class = "refusal"
	// ClassContract: a call that broke the Locker contract without two
	// holders: a TryLock that answered long after its wait, or an unlock
	// after the lease ran out, or by a process that held nothing, that
	// answered "released" and freed nothing (the history has an order in
	// which that answer changed no one's hold).
	ClassContract Class = "contract"
	// ClassFairness: a grant out of request order.
	ClassFairness Class = "fairness"
	// ClassLiveness: a waiter left waiting on a free lock, or a key left
	// behind.
	ClassLiveness Class = "liveness"
)

// classRank orders classes from the most to the least severe.
var classRank = map[Class]int{ClassSafety: 1, ClassRefusal: 2, ClassContract: 3, ClassFairness: 4, ClassLiveness: 5}

// Worse returns the more severe of a and b ("" is the least).
func (a Class) Worse(b Class) Class {
	switch {
	case a == "":
		return b
	case b == "" || classRank[a] <= classRank[b]:
		return a
	}
	return b
}

// checkerClass is the class of a checker's violations when its examples
// do not say.
var checkerClass = map[string]Class{
	CheckLinearizable: ClassSafety, CheckMutualExclusion: ClassSafety, CheckFencing: ClassSafety,
	CheckFairness: ClassFairness, CheckLiveness: ClassLiveness, CheckContract: ClassContract, CheckAllowance: ClassSafety,
	CheckConserved: ClassSafety,
}

// classify sets the class of an invalid result and of its examples: an
// example's own class, else its checker's; the result's is the worst.
func (r *Result) classify() {
	if r.Verdict != Invalid {
		return
	}
	for i := range r.Examples {
		if r.Examples[i].Class == "" {
			r.Examples[i].Class = checkerClass[r.Checker]
		}
		r.Class = r.Class.Worse(r.Examples[i].Class)
	}
	if r.Class == "" {
		r.Class = checkerClass[r.Checker]
	}
}

// Class returns the worst class among the report's invalid results ("" when
// none is invalid).
func (r Report) Class() Class {
	var c Class
	for _, res := range r.Results {
		switch {
		case res.Verdict != Invalid:
		case res.Class != "":
			c = c.Worse(res.Class)
		default:
			c = c.Worse(checkerClass[res.Checker])
		}
	}
	return c
}

// InvalidCheckers names the checkers whose verdict is Invalid, in the
// report's order (nil when none is).
func (r Report) InvalidCheckers() []string {
	var names []string
	for _, res := range r.Results {
		if res.Verdict == Invalid {
			names = append(names, res.Checker)
		}
	}
	return names
}

// Beyond reports whether the fault-allowance checker found an anomaly
// beyond every fault's allowance: the lock broke beyond what the faults
// imply. An Invalid report without it broke, at most, the way any lease
// lock must under its faults.
func (r Report) Beyond() bool {
	res, ok := r.Result(CheckAllowance)
	return ok && res.Verdict == Invalid
}
