package model

// Shape is the form of one violation as its checker found it in the
// history: which rule the ops broke, not the words that explain it. The
// checker that builds an Example sets it from the state it met (a
// refusal of the sequential model, the kind of anomaly beyond the
// faults, the wait it measured), so two finds of one bug have the same
// shape whatever their process numbers, times and locks.
type Shape string

const (
	// ShapeDoubleGrant: two processes held the lock at once (a grant
	// while another held it, two holds believed at once, overlapping
	// critical sections).
	ShapeDoubleGrant Shape = "double-grant"
	// ShapeForeignRelease: a release answered ok while another process
	// held the lock: it freed another's hold, or answered falsely.
	ShapeForeignRelease Shape = "foreign-release"
	// ShapeUnlockAfterLapse: a release answered ok after its hold's lease
	// ran out (a late unlock, a permit released after its lease).
	ShapeUnlockAfterLapse Shape = "unlock-after-lapse"
	// ShapeUnlockNotHeld: a release answered ok by a process that held
	// nothing, and nothing of anyone else's was freed.
	ShapeUnlockNotHeld Shape = "unlock-not-held"
	// ShapeRefusedFree: an acquire refused while no one held the lock.
	ShapeRefusedFree Shape = "refused-free"
	// ShapeReentryRefused: a holder's re-entry was refused.
	ShapeReentryRefused Shape = "reentry-refused"
	// ShapeOwnerRefused: a holder was told it held nothing while no fault
	// could have ended its hold.
	ShapeOwnerRefused Shape = "owner-refused"
	// ShapeHoldLost: a holder was told it held nothing, its hold lost (to
	// a lossy fault, or beyond every fault's allowance).
	ShapeHoldLost Shape = "hold-lost"
	// ShapeOrphanRenewed: acquires refused on a lock that only ended holds
	// could occupy: a hold nobody owns is kept (renewed) on the server.
	ShapeOrphanRenewed Shape = "orphan-renewed"
	// ShapeWatchdogGaveUp: a watchdog hold's client stopped renewing it
	// while its holder still held it.
	ShapeWatchdogGaveUp Shape = "watchdog-gave-up"
	// ShapeWatchdogNeverRenewed: a watchdog hold's client sent nothing on
	// the lock from the acquire that began the silence on, for longer than
	// the lease, and no fault held it up meanwhile: the hold was never
	// renewed, where a watchdog that gave up stopped after renewing, or at
	// a renewal a fault could have failed.
	ShapeWatchdogNeverRenewed Shape = "watchdog-never-renewed"
	// ShapeRenewedMissing: a watchdog's client went on renewing its hold
	// after Redis answered that the hold was gone (renewmissing.go).
	ShapeRenewedMissing Shape = "renewed-missing"
	// ShapeUnheardGrant: an acquire answered granted while Redis had
	// answered none of the commands its client sent on the lock.
	ShapeUnheardGrant Shape = "unheard-grant"
	// ShapeLateAnswer: a call answered after its deadline (a TryLock long
	// after its wait).
	ShapeLateAnswer Shape = "late-answer"
	// ShapeHung: a release or TryLock that ended without an answer (an
	// error, or none by the request's deadline) past every bound the run
	// recorded for it: the library held the call (a hang).
	ShapeHung Shape = "hung"
	// ShapeOvertaken: a fair lock's waiter overtaken by later requests.
	ShapeOvertaken Shape = "overtaken"
	// ShapeWaitOnFree: a waiter left waiting on a free lock (or an open
	// latch, or available permits).
	ShapeWaitOnFree Shape = "wait-on-free"
	// ShapeLongWait: a wait longer than the lock's bound.
	ShapeLongWait Shape = "long-wait"
	// ShapeTokenBackwards: fencing tokens out of order, or a lost update.
	ShapeTokenBackwards Shape = "token-backwards"
	// ShapeOverGrant: a semaphore granted more permits than it has.
	ShapeOverGrant Shape = "over-grant"
	// ShapeUnexplained: no sequential order explains the outcomes, and no
	// single rule was named (the explanation was cut short).
	ShapeUnexplained Shape = "unexplained"
)

// Mechanisms of a shape (Example.Mechanism), after the shape in a
// signature ("watchdog-gave-up.after-failure").
const (
	// MechanismAfterFailure: a watchdog fell silent at a failure: the
	// last command its client sent on the lock before the silence got an
	// error or no answer, or a connection of the client closed before its
	// next renewal was due.
	MechanismAfterFailure = "after-failure"
	// MechanismAfterAnswer: a watchdog fell silent after its client's
	// last command on the lock was answered, with no failure before its
	// next renewal was due.
	MechanismAfterAnswer = "after-answer"
	// MechanismSilent: a waiter's client sent nothing on the lock through
	// the free stretch it waited in (wire trace): a missed wake-up.
	MechanismSilent = "silent"
	// MechanismRefused: a waiter's client asked for the lock while it
	// stood free and was not granted (wire trace): something on the
	// server's side that no op accounts for kept it out.
	MechanismRefused = "refused"
	// MechanismCutShort: of two holds believed at once, the second was
	// granted before the first's lease could have run out: its key was
	// deleted or its expiry shortened under it (doubleGrantMechanism).
	MechanismCutShort = "cut-short"
	// MechanismLapsed: the second was granted after the first's lease
	// could have run out unrenewed: a lapse its holder was not told of.
	MechanismLapsed = "lapsed"
	// MechanismAfterRefusal: an orphan renewed after an acquire that was
	// answered not granted (orphanMechanism): the call said it took
	// nothing, and its client renews what it took.
	MechanismAfterRefusal = "after-refusal"
	// MechanismAfterRetirement: an orphan renewed after a call or hold
	// that retired its process (an unknown outcome: an interrupt, a cancel,
	// a timeout; an Abandon).
	MechanismAfterRetirement = "after-retirement"
)

// mechanisms are the known mechanisms, for parsing.
var mechanisms = map[string]bool{MechanismAfterFailure: true, MechanismAfterAnswer: true, MechanismSilent: true, MechanismRefused: true,
	MechanismCutShort: true, MechanismLapsed: true, MechanismAfterRefusal: true, MechanismAfterRetirement: true}

// shapes are the known shapes, for parsing.
var shapes = map[Shape]bool{
	ShapeDoubleGrant: true, ShapeForeignRelease: true, ShapeUnlockAfterLapse: true, ShapeUnlockNotHeld: true,
	ShapeRefusedFree: true, ShapeReentryRefused: true, ShapeOwnerRefused: true, ShapeHoldLost: true,
	ShapeOrphanRenewed: true, ShapeWatchdogGaveUp: true, ShapeWatchdogNeverRenewed: true, ShapeRenewedMissing: true, ShapeUnheardGrant: true, ShapeLateAnswer: true, ShapeHung: true, ShapeOvertaken: true,
	ShapeWaitOnFree: true, ShapeLongWait: true, ShapeTokenBackwards: true, ShapeOverGrant: true, ShapeUnexplained: true,
}

// refusalShapes maps the sequential model's refusals to their shapes.
var refusalShapes = map[refusal]Shape{
	grantedWhileHeld: ShapeDoubleGrant, reentrantFailed: ShapeReentryRefused, failedWhileFree: ShapeRefusedFree,
	releasedNotHeld: ShapeForeignRelease, ownerToldNotOwner: ShapeOwnerRefused,
}

// shapeOf is the shape of an example whose checker did not set one (a
// report written before shapes existed): its checker's usual one, from
// its class and ops.
func shapeOf(checker string, ex Example) Shape {
	if ex.Shape != "" {
		return ex.Shape
	}
	switch checker {
	case CheckMutualExclusion:
		return ShapeDoubleGrant
	case CheckFencing:
		return ShapeTokenBackwards
	case CheckFairness:
		return ShapeOvertaken
	case CheckLiveness:
		return ShapeLongWait
	case CheckContract:
		return ShapeLateAnswer
	case CheckConserved:
		return ShapeOverGrant
	}
	if ex.Class == ClassRefusal {
		return ShapeRefusedFree
	}
	return ShapeUnexplained
}
