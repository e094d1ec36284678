package model

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/anishathalye/porcupine"
)

// ErrCheckTimeout is the cause (context.Cause) of a check stopped by
// Options.Timeout.
var ErrCheckTimeout = errors.New("model: check timed out")

// withTimeout bounds ctx by opts.Timeout; the bound's cause is
// ErrCheckTimeout, so stopReason tells it from an interruption.
func withTimeout(ctx context.Context, opts Options) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, opts.timeout(), ErrCheckTimeout)
}

// stopReason says why ctx ended ("" while it runs): the check's timeout,
// or an interruption (the caller cancelled it: SIGINT, SIGTERM).
func stopReason(ctx context.Context, opts Options) string {
	switch cause := context.Cause(ctx); {
	case cause == nil:
		return ""
	case errors.Is(cause, ErrCheckTimeout):
		return fmt.Sprintf("timed out after %s", opts.timeout())
	default:
		return "interrupted"
	}
}

// stoppedResult is the result of a checker that ctx stopped before it
// decided.
func stoppedResult(checker, why string) Result {
	return Result{Checker: checker, Verdict: Unknown, Explanation: "undecided: the check was " + why + " before this checker finished"}
}

// stoppable returns the mutex model whose steps all fail once ctx ends:
// porcupine takes no context, and with every step refused it backtracks
// to an answer within a few steps per op of its current path. An answer
// given after ctx ended means nothing (callers test ctx). release frees the
// context's callback.
func stoppable(ctx context.Context) (m porcupine.Model, release func()) {
	var stop atomic.Bool
	unhook := context.AfterFunc(ctx, func() { stop.Store(true) })
	m = mutexModel
	m.Step = func(state, input, output interface{}) (bool, interface{}) {
		if stop.Load() {
			return false, state
		}
		return mutexModel.Step(state, input, output)
	}
	return m, func() { unhook() }
}

// checkOps decides one segment: linearizable when a simple order of its
// ops is a linearization (orderWitness) or one built op by op without
// search is (greedyWitness), not when its counts contradict each other
// (countsContradict), else as porcupine finds under ctx (its deadline
// included): Unknown when ctx ends first.
func checkOps(ctx context.Context, ops []porcupine.Operation) porcupine.CheckResult {
	if ctx.Err() != nil {
		return porcupine.Unknown
	}
	if v, ok := shortcut(ops); ok {
		return v
	}
	m, release := stoppable(ctx)
	defer release()
	v := porcupine.CheckOperations(m, ops)
	if ctx.Err() != nil {
		return porcupine.Unknown
	}
	if v {
		return porcupine.Ok
	}
	return porcupine.Illegal
}

// shortcut decides ops without search when it can: Ok when a witness
// order is a linearization, Illegal when the counts contradict each
// other; false when neither decides.
func shortcut(ops []porcupine.Operation) (porcupine.CheckResult, bool) {
	if orderWitness(ops) || greedyWitness(ops) {
		return porcupine.Ok, true
	}
	if _, bad := countsContradict(ops); bad {
		return porcupine.Illegal, true
	}
	return porcupine.Unknown, false
}

// linearizable reports whether ops are linearizable: by shortcut when it
// decides, else by porcupine's search with m (the explanation's stoppable
// model: an answer given after its context ended means nothing, and
// callers test the context).
func linearizable(m porcupine.Model, ops []porcupine.Operation) bool {
	if v, ok := shortcut(ops); ok {
		return v == porcupine.Ok
	}
	return porcupine.CheckOperations(m, ops)
}
